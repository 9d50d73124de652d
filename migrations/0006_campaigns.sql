-- Firmware and image campaigns: the campaign with its canonical spec, every node it selected
-- (with its wave, plan order and state), and an append-only timeline of what happened. Times of
-- campaign rows come from the engine's clock (a parameter), never now(): the campaign
-- controller compares them with its own clock, and tests drive that with a fake one.

CREATE TABLE campaigns (
  id                 bigserial PRIMARY KEY,
  name               text NOT NULL CONSTRAINT campaigns_name_key UNIQUE
                       CONSTRAINT campaigns_name_check CHECK (name ~ '^[a-z0-9][a-z0-9._-]{0,63}$'),
  kind               text NOT NULL CONSTRAINT campaigns_kind_check
                       CHECK (kind IN ('firmware', 'image')),
  state              text NOT NULL DEFAULT 'draft' CONSTRAINT campaigns_state_check
                       CHECK (state IN ('draft', 'running', 'paused', 'completed', 'cancelled')),
  -- The canonical spec (parseCampaignSpec's output, defaults filled in): what the controller
  -- runs by. Immutable once written.
  spec               jsonb NOT NULL,
  -- What it rolls out: a baseline revision (firmware) or an image version (image).
  baseline_name      text NOT NULL DEFAULT '',
  baseline_revision  integer CHECK (baseline_revision >= 1),
  image_name         text NOT NULL DEFAULT '',
  image_version      text NOT NULL DEFAULT '',
  -- Why it is paused (an operator's words, or the gate that tripped) and the evidence.
  pause_reason       text NOT NULL DEFAULT '',
  pause_detail       jsonb NOT NULL DEFAULT '{}',
  -- Set by `rollback`: the controller takes every node the campaign changed back.
  rollback_requested boolean NOT NULL DEFAULT false,
  -- The wave the controller works on, when it started, and until when it bakes.
  current_wave       integer NOT NULL DEFAULT 0 CHECK (current_wave >= 0),
  wave_started_at    timestamptz,
  bake_until         timestamptz,
  created_by         text NOT NULL DEFAULT '',
  created_at         timestamptz NOT NULL,
  started_at         timestamptz,
  finished_at        timestamptz,
  updated_at         timestamptz NOT NULL,
  CONSTRAINT campaigns_target_check CHECK (
    (kind = 'firmware' AND baseline_name <> '' AND baseline_revision IS NOT NULL)
    OR (kind = 'image' AND image_name <> '' AND image_version <> '')),
  CONSTRAINT campaigns_finished_check CHECK (
    (finished_at IS NOT NULL) = (state IN ('completed', 'cancelled')))
);
CREATE INDEX campaigns_open_idx ON campaigns (id) WHERE state IN ('running', 'paused');

-- Every node a campaign selected, planned when the campaign was created: its wave, its place in
-- the plan order, the components it changes ([{component, from, to, package}]), and what it
-- was (site, rack, model, labels) when planned, so the plan reads the same later.
CREATE TABLE campaign_nodes (
  campaign_id       bigint NOT NULL REFERENCES campaigns (id),
  node_id           bigint NOT NULL REFERENCES nodes (id),
  wave              integer NOT NULL CHECK (wave >= 0),
  position          integer NOT NULL CHECK (position >= 0),
  state             text NOT NULL DEFAULT 'pending' CONSTRAINT campaign_nodes_state_check
                      CHECK (state IN ('pending', 'running', 'succeeded', 'failed', 'rolled_back',
                                       'rollback_failed', 'skipped', 'cancelled')),
  -- The node's update workflow run, once started.
  run_id            bigint REFERENCES workflow_runs (id),
  reason            text NOT NULL DEFAULT '',
  detail            jsonb NOT NULL DEFAULT '{}',
  components        jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(components) = 'array'),
  estimated_seconds integer NOT NULL DEFAULT 0 CHECK (estimated_seconds >= 0),
  site              text NOT NULL DEFAULT '',
  rack              text NOT NULL DEFAULT '',
  hardware_model    text NOT NULL DEFAULT '',
  labels            jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(labels) = 'object'),
  started_at        timestamptz,
  finished_at       timestamptz,
  updated_at        timestamptz NOT NULL,
  PRIMARY KEY (campaign_id, node_id),
  CONSTRAINT campaign_nodes_position_key UNIQUE (campaign_id, position)
);
CREATE INDEX campaign_nodes_node_idx ON campaign_nodes (node_id);
CREATE INDEX campaign_nodes_wave_idx ON campaign_nodes (campaign_id, wave, position);

-- The campaign's timeline: created, started, paused (with the reason), nodes admitted and
-- finished, gates, rollback. Append-only.
CREATE TABLE campaign_events (
  id          bigserial PRIMARY KEY,
  campaign_id bigint NOT NULL REFERENCES campaigns (id),
  node_id     bigint REFERENCES nodes (id),
  at          timestamptz NOT NULL,
  actor       text NOT NULL DEFAULT '',
  kind        text NOT NULL CHECK (kind <> ''),
  message     text NOT NULL DEFAULT '',
  detail      jsonb NOT NULL DEFAULT '{}'
);
CREATE INDEX campaign_events_campaign_idx ON campaign_events (campaign_id, id);
CREATE TRIGGER campaign_events_append_only BEFORE UPDATE OR DELETE ON campaign_events
  FOR EACH ROW EXECUTE FUNCTION forbid_history_change();

-- Durable workflows, discovery, claimed BMC credentials and what a hardware profile asks of a
-- node (BIOS settings, minimum firmware, GPU model). Timestamps of workflow rows come from the
-- engine's clock (a parameter), never now(): tests drive them with a fake clock.

-- Node states: "firmware" joins the lifecycle; a state carries its reason (a quarantine's cause).
ALTER TABLE nodes DROP CONSTRAINT nodes_state_check;
ALTER TABLE nodes ADD CONSTRAINT nodes_state_check CHECK (state IN (
  'discovered', 'matched', 'claimed', 'inspected', 'configured', 'firmware', 'imaging',
  'burn_in', 'ready', 'quarantined', 'decommissioning', 'retired'));
ALTER TABLE nodes ADD COLUMN state_reason text NOT NULL DEFAULT '';
ALTER TABLE nodes ADD COLUMN state_detail jsonb NOT NULL DEFAULT '{}';

-- Workflow runs ------------------------------------------------------------------------------

-- One run of one workflow over one subject (e.g. kind "node_lifecycle", subject
-- "bmc:aa:bb:cc:dd:ee:ff"). Claimed by a replica under a lease; an outcome is written only by the
-- holder of the lease epoch it was claimed with, so a step's effect on the run is never applied
-- twice even when a lease expires under a slow replica.
CREATE TABLE workflow_runs (
  id               bigserial PRIMARY KEY,
  kind             text NOT NULL CHECK (kind ~ '^[a-z][a-z0-9_]{0,63}$'),
  subject          text NOT NULL CHECK (subject <> ''),
  state            text NOT NULL DEFAULT 'running' CONSTRAINT workflow_runs_state_check
                     CHECK (state IN ('running', 'succeeded', 'failed', 'cancelled')),
  step             text NOT NULL CHECK (step <> ''),
  -- Failed tries of the current step so far (0 on entering a step).
  attempt          integer NOT NULL DEFAULT 0 CHECK (attempt >= 0),
  next_run_at      timestamptz NOT NULL,
  -- What a waiting run waits for besides its timer ('' when nothing); shown to operators.
  waiting_for      text NOT NULL DEFAULT '',
  -- Bumped by every signal. A step that ends in a wait while a signal arrived during it is due
  -- again at once, so a wake-up is never lost to a race.
  wakeups          bigint NOT NULL DEFAULT 0,
  lease_owner      text,
  lease_expires_at timestamptz,
  lease_epoch      bigint NOT NULL DEFAULT 0,
  context          jsonb NOT NULL DEFAULT '{}',
  node_id          bigint REFERENCES nodes (id),
  site             text NOT NULL DEFAULT '',
  rack             text NOT NULL DEFAULT '',
  -- Why the run failed or was cancelled, with the evidence.
  reason           text NOT NULL DEFAULT '',
  detail           jsonb NOT NULL DEFAULT '{}',
  -- When the current step was first entered: its duration spans its retries and waits.
  step_started_at  timestamptz NOT NULL,
  created_by       text NOT NULL DEFAULT '',
  created_at       timestamptz NOT NULL,
  updated_at       timestamptz NOT NULL,
  finished_at      timestamptz,
  CHECK ((finished_at IS NULL) = (state = 'running'))
);
-- One open run per workflow and subject: a repeated trigger finds the run already there.
CREATE UNIQUE INDEX workflow_runs_open_subject_key ON workflow_runs (kind, subject)
  WHERE state = 'running';
CREATE INDEX workflow_runs_due_idx ON workflow_runs (next_run_at) WHERE state = 'running';
CREATE INDEX workflow_runs_node_idx ON workflow_runs (node_id, id) WHERE node_id IS NOT NULL;
CREATE INDEX workflow_runs_subject_idx ON workflow_runs (kind, subject, id);

-- The timeline: every step start, outcome, wait, retry and operator action. Append-only.
CREATE TABLE workflow_events (
  id          bigserial PRIMARY KEY,
  run_id      bigint NOT NULL REFERENCES workflow_runs (id),
  node_id     bigint REFERENCES nodes (id),
  at          timestamptz NOT NULL,
  actor       text NOT NULL DEFAULT '',
  step        text NOT NULL DEFAULT '',
  kind        text NOT NULL CHECK (kind <> ''),
  message     text NOT NULL DEFAULT '',
  detail      jsonb NOT NULL DEFAULT '{}',
  duration_ms double precision
);
CREATE INDEX workflow_events_run_idx ON workflow_events (run_id, id);
CREATE INDEX workflow_events_node_idx ON workflow_events (node_id, id) WHERE node_id IS NOT NULL;
CREATE TRIGGER workflow_events_append_only BEFORE UPDATE OR DELETE ON workflow_events
  FOR EACH ROW EXECUTE FUNCTION forbid_history_change();

-- Admission slots: a run holds at most one slot per scope (e.g. "rack" -> "r01", "site" ->
-- "dc1") from the step that asks for it until the run ends. Caps are counted under an advisory
-- lock on (scope, key).
CREATE TABLE workflow_slots (
  run_id      bigint NOT NULL REFERENCES workflow_runs (id),
  scope       text NOT NULL CHECK (scope <> ''),
  key         text NOT NULL,
  acquired_at timestamptz NOT NULL,
  PRIMARY KEY (run_id, scope)
);
CREATE INDEX workflow_slots_key_idx ON workflow_slots (scope, key);

-- Discovery ----------------------------------------------------------------------------------

-- A BMC seen on the network: by a DHCP lease, a subnet sweep, a rack manifest or an operator.
-- One row per BMC MAC; a BMC found by address alone (a sweep) has one row per address until its
-- MAC is known.
CREATE TABLE bmc_discoveries (
  id              bigserial PRIMARY KEY,
  bmc_mac         text CONSTRAINT bmc_discoveries_bmc_mac_check
                    CHECK (bmc_mac ~ '^([0-9a-f]{2}:){5}[0-9a-f]{2}$'),
  bmc_address     text NOT NULL CHECK (bmc_address <> ''),
  hostname        text NOT NULL DEFAULT '',
  vendor_class    text NOT NULL DEFAULT '',
  source          text NOT NULL CONSTRAINT bmc_discoveries_source_check
                    CHECK (source IN ('dhcp', 'sweep', 'manifest', 'redfish_event', 'operator')),
  site            text NOT NULL DEFAULT '',
  rack            text NOT NULL DEFAULT '',
  u_position      integer CHECK (u_position >= 1),
  expected_serial text NOT NULL DEFAULT '',
  lease_state     text NOT NULL DEFAULT 'active' CHECK (lease_state IN ('active', 'released')),
  node_id         bigint REFERENCES nodes (id),
  seen_count      integer NOT NULL DEFAULT 1,
  first_seen_at   timestamptz NOT NULL DEFAULT now(),
  last_seen_at    timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX bmc_discoveries_bmc_mac_key ON bmc_discoveries (bmc_mac)
  WHERE bmc_mac IS NOT NULL;
CREATE UNIQUE INDEX bmc_discoveries_address_key ON bmc_discoveries (bmc_address)
  WHERE bmc_mac IS NULL;

CREATE TABLE discovery_sweeps (
  id           bigserial PRIMARY KEY,
  cidr         text NOT NULL CHECK (cidr <> ''),
  scheme       text NOT NULL DEFAULT 'https' CHECK (scheme IN ('http', 'https')),
  port         integer NOT NULL CHECK (port BETWEEN 1 AND 65535),
  site         text NOT NULL DEFAULT '',
  rack         text NOT NULL DEFAULT '',
  state        text NOT NULL DEFAULT 'running' CHECK (state IN ('running', 'done', 'failed')),
  addresses    integer NOT NULL DEFAULT 0,
  probed       integer NOT NULL DEFAULT 0,
  found        integer NOT NULL DEFAULT 0,
  error        text NOT NULL DEFAULT '',
  requested_by text NOT NULL DEFAULT '',
  created_at   timestamptz NOT NULL DEFAULT now(),
  finished_at  timestamptz
);

-- Claimed BMC credentials --------------------------------------------------------------------

-- The per-node BMC secret that replaced the factory one. `pending_password_sealed` is the
-- intent written before the BMC is told: a claim resumed after a crash tries it first.
CREATE TABLE node_bmc_credentials (
  node_id                 bigint PRIMARY KEY REFERENCES nodes (id),
  username                text NOT NULL CHECK (username <> ''),
  password_sealed         text NOT NULL CHECK (password_sealed LIKE 'v1:%'),
  pending_password_sealed text CHECK (pending_password_sealed LIKE 'v1:%'),
  -- SHA-256 of the BMC's certificate, pinned on first contact ('' over plain HTTP).
  tls_fingerprint         text NOT NULL DEFAULT '',
  -- SHA-256 of the secret in this node's Redfish event subscription Context ('' before one).
  event_token_hash        text NOT NULL DEFAULT '',
  rotated_at              timestamptz,
  updated_at              timestamptz NOT NULL DEFAULT now()
);

-- What a hardware profile asks of a node ------------------------------------------------------

-- bios_settings: {"Attribute": value, ...}, applied where different.
-- min_firmware: [{"match": "BMC", "version": "1.2.3", "image_uri": "https://..."}], where match
--   is compared (case-insensitively, as a substring) with the FirmwareInventory member's Id and
--   Name.
-- gpu_model: the GPU model every GPU must report ('' accepts any).
ALTER TABLE hardware_profiles ADD COLUMN bios_settings jsonb NOT NULL DEFAULT '{}';
ALTER TABLE hardware_profiles ADD COLUMN min_firmware jsonb NOT NULL DEFAULT '[]';
ALTER TABLE hardware_profiles ADD COLUMN gpu_model text NOT NULL DEFAULT '';

-- The node list shows why a node is where it is.
CREATE OR REPLACE VIEW node_summary AS
SELECT n.id, n.state, n.hardware_model, n.chassis_serial, n.bmc_address, n.bmc_mac, n.rack_id,
       coalesce(s.name, '') AS site, coalesce(r.name, '') AS rack, n.u_position,
       (SELECT count(*)::integer
          FROM component_placements p JOIN components c ON c.id = p.component_id
         WHERE p.node_id = n.id AND p.removed_at IS NULL AND c.kind = 'gpu') AS gpu_count,
       n.created_at, n.updated_at, n.state_reason
  FROM nodes n
  LEFT JOIN racks r ON r.id = n.rack_id
  LEFT JOIN sites s ON s.id = r.site_id;

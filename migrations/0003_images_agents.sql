-- Images, channels, hardware profiles, the MACs nodes network-boot with, agent tasks and their
-- tokens, and burn-in results per GPU serial. Constraint names are stable: the inventory library
-- maps them to error codes (image_version_exists, boot_mac_in_use, task_already_open, ...).

-- True when the text parses as JSON; lets the library name the offending field instead of
-- failing on a cast inside a write.
CREATE FUNCTION json_text_valid(t text) RETURNS boolean
  LANGUAGE plpgsql IMMUTABLE STRICT
  AS $$
BEGIN
  PERFORM t::jsonb;
  RETURN true;
EXCEPTION WHEN data_exception OR program_limit_exceeded THEN
  RETURN false;
END $$;

-- Image catalog ------------------------------------------------------------------------------

-- A version is immutable once registered: rows are never updated.
CREATE TABLE images (
  id            bigserial PRIMARY KEY,
  name          text NOT NULL CONSTRAINT images_name_check
                  CHECK (name ~ '^[a-z0-9][a-z0-9._-]{0,63}$'),
  version       text NOT NULL CONSTRAINT images_version_check
                  CHECK (version ~ '^[A-Za-z0-9][A-Za-z0-9._+-]{0,63}$'),
  description   text NOT NULL DEFAULT '',
  kernel_args   text NOT NULL DEFAULT '',
  -- The signed manifest document exactly as registered, so its signature can be checked again.
  manifest_json text NOT NULL CHECK (manifest_json <> ''),
  key_id        text NOT NULL DEFAULT '',
  registered_by text NOT NULL DEFAULT '',
  registered_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT images_name_version_key UNIQUE (name, version)
);
CREATE INDEX images_name_idx ON images (name, id);

CREATE TABLE image_artifacts (
  image_id  bigint NOT NULL REFERENCES images (id),
  kind      text NOT NULL CONSTRAINT image_artifacts_kind_check
              CHECK (kind IN ('kernel', 'initrd', 'rootfs')),
  sha256    text NOT NULL CONSTRAINT image_artifacts_sha256_check CHECK (sha256 ~ '^[0-9a-f]{64}$'),
  size      bigint NOT NULL CONSTRAINT image_artifacts_size_check CHECK (size > 0),
  file_name text NOT NULL DEFAULT '',
  CONSTRAINT image_artifacts_image_id_kind_key PRIMARY KEY (image_id, kind)
);
-- Which images use a blob (artifact store clean-up, "who ships this kernel").
CREATE INDEX image_artifacts_sha256_idx ON image_artifacts (sha256);

CREATE FUNCTION forbid_update() RETURNS trigger
  LANGUAGE plpgsql
  AS $$ BEGIN RAISE EXCEPTION '% rows are immutable', TG_TABLE_NAME; END $$;
CREATE TRIGGER images_immutable BEFORE UPDATE ON images
  FOR EACH ROW EXECUTE FUNCTION forbid_update();
CREATE TRIGGER image_artifacts_immutable BEFORE UPDATE ON image_artifacts
  FOR EACH ROW EXECUTE FUNCTION forbid_update();

-- Channels: a name pointing at one image; every move is history.
CREATE TABLE channels (
  id         bigserial PRIMARY KEY,
  name       text NOT NULL CONSTRAINT channels_name_key UNIQUE
               CONSTRAINT channels_name_check CHECK (name ~ '^[a-z0-9][a-z0-9._-]{0,63}$'),
  image_id   bigint NOT NULL REFERENCES images (id),
  updated_by text NOT NULL DEFAULT '',
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE channel_events (
  id            bigserial PRIMARY KEY,
  channel_id    bigint NOT NULL REFERENCES channels (id),
  action        text NOT NULL CONSTRAINT channel_events_action_check
                  CHECK (action IN ('promote', 'rollback')),
  from_image_id bigint REFERENCES images (id),
  to_image_id   bigint NOT NULL REFERENCES images (id),
  actor         text NOT NULL DEFAULT '',
  reason        text NOT NULL DEFAULT '',
  at            timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX channel_events_channel_idx ON channel_events (channel_id, id);
CREATE TRIGGER channel_events_append_only BEFORE UPDATE OR DELETE ON channel_events
  FOR EACH ROW EXECUTE FUNCTION forbid_history_change();

-- Hardware profiles: per server model, which channel it boots and which burn-in plan it runs.
-- The channel is a name, not a key: it need not exist yet.
CREATE TABLE hardware_profiles (
  id            bigserial PRIMARY KEY,
  name          text NOT NULL CONSTRAINT hardware_profiles_name_key UNIQUE
                  CONSTRAINT hardware_profiles_name_check
                  CHECK (name ~ '^[a-z0-9][a-z0-9._-]{0,63}$'),
  model         text NOT NULL CONSTRAINT hardware_profiles_model_key UNIQUE CHECK (model <> ''),
  channel       text NOT NULL CONSTRAINT hardware_profiles_channel_check
                  CHECK (channel ~ '^[a-z0-9][a-z0-9._-]{0,63}$'),
  burn_in_plan  jsonb NOT NULL DEFAULT '{}',
  expected_gpus integer NOT NULL DEFAULT 0 CONSTRAINT hardware_profiles_expected_gpus_check
                  CHECK (expected_gpus >= 0),
  updated_by    text NOT NULL DEFAULT '',
  updated_at    timestamptz NOT NULL DEFAULT now()
);

-- Network boot -------------------------------------------------------------------------------

-- Host NIC MACs a node PXE/HTTP-boots with (never its BMC MAC); one node per MAC.
CREATE TABLE boot_macs (
  id         bigserial PRIMARY KEY,
  mac        text NOT NULL CONSTRAINT boot_macs_mac_key UNIQUE
               CONSTRAINT boot_macs_mac_check CHECK (mac ~ '^([0-9a-f]{2}:){5}[0-9a-f]{2}$'),
  node_id    bigint NOT NULL REFERENCES nodes (id),
  source     text NOT NULL CONSTRAINT boot_macs_source_check
               CHECK (source IN ('operator', 'redfish', 'agent')),
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX boot_macs_node_idx ON boot_macs (node_id, mac);

-- Agent tasks --------------------------------------------------------------------------------

CREATE TABLE agent_tasks (
  id            bigserial PRIMARY KEY,
  node_id       bigint NOT NULL REFERENCES nodes (id),
  kind          text NOT NULL CONSTRAINT agent_tasks_kind_check CHECK (kind IN ('burn_in', 'wipe')),
  state         text NOT NULL DEFAULT 'pending' CONSTRAINT agent_tasks_state_check
                  CHECK (state IN ('pending', 'running', 'passed', 'failed', 'error', 'cancelled')),
  spec          jsonb NOT NULL DEFAULT '{}',
  batch         text NOT NULL DEFAULT '',
  expected_gpus integer NOT NULL DEFAULT 0 CONSTRAINT agent_tasks_expected_gpus_check
                  CHECK (expected_gpus >= 0),
  facts         jsonb,
  progress      jsonb,
  verdict       jsonb,
  created_by    text NOT NULL DEFAULT '',
  created_at    timestamptz NOT NULL DEFAULT now(),
  registered_at timestamptz,
  started_at    timestamptz,
  finished_at   timestamptz,
  CHECK ((finished_at IS NULL) = (state IN ('pending', 'running')))
);
-- One open task per node: the node boots for exactly one purpose at a time.
CREATE UNIQUE INDEX agent_tasks_open_key ON agent_tasks (node_id)
  WHERE state IN ('pending', 'running');
CREATE INDEX agent_tasks_node_idx ON agent_tasks (node_id, id);

-- Node-scoped agent tokens, stored as SHA-256 hashes. "boot" tokens are used once (the agent's
-- registration); "session" tokens carry the task's later calls.
CREATE TABLE agent_tokens (
  id         bigserial PRIMARY KEY,
  token_hash text NOT NULL CONSTRAINT agent_tokens_token_hash_key UNIQUE
               CONSTRAINT agent_tokens_token_hash_check CHECK (token_hash ~ '^[0-9a-f]{64}$'),
  node_id    bigint NOT NULL REFERENCES nodes (id),
  task_id    bigint NOT NULL REFERENCES agent_tasks (id),
  kind       text NOT NULL CONSTRAINT agent_tokens_kind_check CHECK (kind IN ('boot', 'session')),
  issued_at  timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  used_at    timestamptz,
  revoked_at timestamptz
);
CREATE INDEX agent_tokens_task_idx ON agent_tokens (task_id);
-- The boot tokens a newer one revokes.
CREATE INDEX agent_tokens_node_unused_boot_idx ON agent_tokens (node_id)
  WHERE kind = 'boot' AND used_at IS NULL AND revoked_at IS NULL;

-- Burn-in results ----------------------------------------------------------------------------

-- One measurement of one GPU in one task. Append-only: a GPU's history is evidence.
CREATE TABLE burn_in_results (
  id           bigserial PRIMARY KEY,
  task_id      bigint NOT NULL REFERENCES agent_tasks (id),
  node_id      bigint NOT NULL REFERENCES nodes (id),
  batch        text NOT NULL DEFAULT '',
  gpu_serial   text NOT NULL CHECK (gpu_serial <> ''),
  gpu_uuid     text NOT NULL DEFAULT '',
  gpu_model    text NOT NULL DEFAULT '',
  test         text NOT NULL CHECK (test <> ''),
  value        double precision NOT NULL,
  unit         text NOT NULL DEFAULT '',
  nominal      double precision,
  threshold    double precision NOT NULL DEFAULT 0,
  batch_median double precision,
  robust_z     double precision,
  passed       boolean NOT NULL,
  reason       text NOT NULL DEFAULT '',
  measured_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX burn_in_results_gpu_idx ON burn_in_results (gpu_serial, id);
CREATE INDEX burn_in_results_peer_idx ON burn_in_results (batch, gpu_model, test)
  INCLUDE (task_id, value);
CREATE INDEX burn_in_results_task_idx ON burn_in_results (task_id, id);
CREATE TRIGGER burn_in_results_append_only BEFORE UPDATE OR DELETE ON burn_in_results
  FOR EACH ROW EXECUTE FUNCTION forbid_history_change();

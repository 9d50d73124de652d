-- GPU health flags (docs/health.md, "Flags"): what the health rules (inventory::health::rules)
-- raised for a GPU, why, on what evidence, and the action; acknowledged and cleared by operators
-- with who and when. Keyed by the GPU's serial, like its history. One flag per GPU and rule is
-- open (or acknowledged) at a time; cleared flags are kept. Raising, acknowledging and clearing
-- also write flag_raised / flag_acknowledged / flag_cleared to gpu_health_events.
CREATE TABLE gpu_flags (
  id               bigserial PRIMARY KEY,
  gpu_serial       text NOT NULL CHECK (gpu_serial <> ''),
  rule             text NOT NULL CHECK (rule ~ '^[a-z][a-z0-9_.]{0,63}$'),
  severity         text NOT NULL CHECK (severity IN ('info', 'warning', 'critical')),
  action           text NOT NULL CHECK (action IN ('watch', 'reset_at_idle', 'rerun_burn_in',
                                                   'drain', 'rma_candidate')),
  state            text NOT NULL DEFAULT 'open'
                     CHECK (state IN ('open', 'acknowledged', 'cleared')),
  reason           text NOT NULL CHECK (reason <> ''),
  evidence         jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(evidence) = 'object'),
  node_id          bigint REFERENCES nodes (id),  -- where the GPU was when the flag was raised
  evidence_at      timestamptz NOT NULL,          -- when the evidence was seen
  raised_at        timestamptz NOT NULL,          -- when the service raised the flag
  acknowledged_at  timestamptz,
  acknowledged_by  text,
  acknowledge_note text,
  cleared_at       timestamptz,
  cleared_by       text,
  clear_note       text,
  action_at        timestamptz,  -- when the action (a drain) was started
  action_run_id    bigint,       -- the workflow run that carries it out
  CHECK (state <> 'open' OR (acknowledged_at IS NULL AND cleared_at IS NULL)),
  CHECK (state <> 'acknowledged' OR (acknowledged_at IS NOT NULL AND acknowledged_by IS NOT NULL)),
  CHECK (state <> 'cleared' OR (cleared_at IS NOT NULL AND cleared_by IS NOT NULL))
);
-- One open (or acknowledged) flag per GPU and rule: a second raise is a no-op.
CREATE UNIQUE INDEX gpu_flags_one_open ON gpu_flags (gpu_serial, rule) WHERE state <> 'cleared';
CREATE INDEX gpu_flags_gpu_idx ON gpu_flags (gpu_serial, raised_at);
CREATE INDEX gpu_flags_node_idx ON gpu_flags (node_id, raised_at);
CREATE INDEX gpu_flags_state_idx ON gpu_flags (state, severity, raised_at);

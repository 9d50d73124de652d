-- Work for a node's resident agent while the node is in service (docs/health.md, "Actions"):
-- today a GPU reset for a reset_at_idle flag. The workflow run that wants it writes the task
-- first (one per run, GPU and kind: its intent); the agent learns of it in the answer to its next
-- health batch and reports the outcome with its node credential. Unlike agent_tasks (what a node
-- boots for), a node in service may hold several at once, one per GPU.
CREATE TABLE resident_tasks (
  id           bigserial PRIMARY KEY,
  node_id      bigint NOT NULL REFERENCES nodes (id),
  kind         text NOT NULL CONSTRAINT resident_tasks_kind_check CHECK (kind IN ('gpu_reset')),
  gpu_serial   text NOT NULL CONSTRAINT resident_tasks_gpu_serial_check CHECK (gpu_serial <> ''),
  flag_id      bigint REFERENCES gpu_flags (id),
  run_id       bigint NOT NULL REFERENCES workflow_runs (id),
  state        text NOT NULL DEFAULT 'pending' CONSTRAINT resident_tasks_state_check
                 CHECK (state IN ('pending', 'delivered', 'succeeded', 'failed', 'cancelled')),
  message      text NOT NULL DEFAULT '',
  created_at   timestamptz NOT NULL,
  delivered_at timestamptz,
  finished_at  timestamptz,
  -- When the agent finished, on the node's own clock: what the node's later readings (dated on
  -- that clock too) are compared with, whatever the skew between node and service.
  done_at      timestamptz,
  CHECK ((finished_at IS NULL) = (state IN ('pending', 'delivered')))
);
-- The run's intent, written once however often its step is retried or resumed.
CREATE UNIQUE INDEX resident_tasks_intent_key ON resident_tasks (run_id, kind, gpu_serial);
-- What the health batch's answer looks up (usually nothing).
CREATE INDEX resident_tasks_open_idx ON resident_tasks (node_id, id) WHERE finished_at IS NULL;

-- A drain flag's hold on its node, released (docs/health.md, "Actions"): when an operator clears
-- a flag whose action drained the node, the service gives the node back to the scheduler unless
-- another flag still holds it. Recorded once per flag, by the run that did it, after the
-- scheduler was told (or found there was nothing to tell).
ALTER TABLE gpu_flags ADD COLUMN released_at timestamptz, ADD COLUMN release_run_id bigint;
-- The upkeep's pass finds the cleared flags whose hold is still to release.
CREATE INDEX gpu_flags_release_due_idx ON gpu_flags (id)
  WHERE state = 'cleared' AND action_at IS NOT NULL AND released_at IS NULL;

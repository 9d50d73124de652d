-- A resident burn-in (docs/health.md, "Actions"): a rerun_burn_in flag's short burn-in, run by
-- the node's resident agent while the node is drained, without a reboot. The task carries its
-- plan (spec_json: {"plan", "expected_gpus"}); the service judges the agent's result as it judges
-- any burn-in and keeps the verdict beside the task.
ALTER TABLE resident_tasks DROP CONSTRAINT resident_tasks_kind_check;
ALTER TABLE resident_tasks ADD CONSTRAINT resident_tasks_kind_check
  CHECK (kind IN ('gpu_reset', 'burn_in'));
ALTER TABLE resident_tasks ADD COLUMN spec_json text NOT NULL DEFAULT '{}';
ALTER TABLE resident_tasks ADD COLUMN verdict_json text;

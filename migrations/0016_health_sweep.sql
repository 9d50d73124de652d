-- The out-of-band health sweep (docs/health.md, "The out-of-band sweep"): when a node's agent has
-- gone silent, the service reads what its BMC says and keeps it in the same history, marked as
-- the BMC's. A BMC reading never advances a GPU's counter state (the agent's counters are the
-- ones corrected for resets; the BMC's lifetime counts are kept raw in the sample), so an agent
-- that comes back sends its queued readings without any being refused as older than the BMC's.
ALTER TABLE gpu_health_samples
  ADD COLUMN source text NOT NULL DEFAULT 'agent' CHECK (source IN ('agent', 'bmc'));

-- One row per node the sweep has tried: when, whether its BMC answered, what it read. The sweep's
-- pacing (a BMC read at most once per its minimum interval, an unreachable one retried later)
-- reads this whichever replica runs the sweep.
CREATE TABLE node_health_sweeps (
  node_id      bigint PRIMARY KEY REFERENCES nodes (id),
  attempted_at timestamptz NOT NULL,
  swept_at     timestamptz,  -- the last read that succeeded
  reachable    boolean NOT NULL,
  gpus         integer NOT NULL DEFAULT 0 CHECK (gpus >= 0),
  error        text
);

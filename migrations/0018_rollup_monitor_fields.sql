-- The hourly and daily roll-ups carry what the resident monitor reads besides (0017): the HBM's
-- own temperature, the memory clock and the utilisation as (count, sum, min, max) like the other
-- gauges, so they merge exactly; and PCIe replays as new replays per bucket, reset-corrected
-- like the ECC deltas. Each raw reading gains its own PCIe replay delta, computed at ingest
-- from the counter state; NULL when there were none (most readings: a NULL costs a bit of the
-- row's null bitmap, a 0 eight bytes), and for readings stored before and the sweep's.
ALTER TABLE gpu_health_samples
  ADD COLUMN pcie_replay_delta bigint;

ALTER TABLE gpu_health_hourly
  ADD COLUMN hbm_temperature_n   integer NOT NULL DEFAULT 0,
  ADD COLUMN hbm_temperature_sum double precision NOT NULL DEFAULT 0,
  ADD COLUMN hbm_temperature_min real,
  ADD COLUMN hbm_temperature_max real,
  ADD COLUMN mem_clock_n         integer NOT NULL DEFAULT 0,
  ADD COLUMN mem_clock_sum       double precision NOT NULL DEFAULT 0,
  ADD COLUMN mem_clock_min       integer,
  ADD COLUMN mem_clock_max       integer,
  ADD COLUMN utilization_n       integer NOT NULL DEFAULT 0,
  ADD COLUMN utilization_sum     double precision NOT NULL DEFAULT 0,
  ADD COLUMN utilization_min     smallint,
  ADD COLUMN utilization_max     smallint,
  ADD COLUMN pcie_replay_delta   bigint NOT NULL DEFAULT 0;

ALTER TABLE gpu_health_daily
  ADD COLUMN hbm_temperature_n   integer NOT NULL DEFAULT 0,
  ADD COLUMN hbm_temperature_sum double precision NOT NULL DEFAULT 0,
  ADD COLUMN hbm_temperature_min real,
  ADD COLUMN hbm_temperature_max real,
  ADD COLUMN mem_clock_n         integer NOT NULL DEFAULT 0,
  ADD COLUMN mem_clock_sum       double precision NOT NULL DEFAULT 0,
  ADD COLUMN mem_clock_min       integer,
  ADD COLUMN mem_clock_max       integer,
  ADD COLUMN utilization_n       integer NOT NULL DEFAULT 0,
  ADD COLUMN utilization_sum     double precision NOT NULL DEFAULT 0,
  ADD COLUMN utilization_min     smallint,
  ADD COLUMN utilization_max     smallint,
  ADD COLUMN pcie_replay_delta   bigint NOT NULL DEFAULT 0;

-- What the resident monitor reads besides (docs/health.md, "The resident monitor"): the HBM's own
-- temperature, the memory clock and the GPU's utilisation as gauges of each raw reading, and the
-- PCIe replay count as one more counter (kept raw here; its reset-corrected lifetime total is in
-- gpu_counter_state with the others). The hourly and daily roll-ups do not carry them yet.
ALTER TABLE gpu_health_samples
  ADD COLUMN hbm_temperature_c real,
  ADD COLUMN mem_clock_mhz integer,
  ADD COLUMN gpu_utilization_pct smallint,
  ADD COLUMN pcie_replay_errors bigint;

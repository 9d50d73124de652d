-- The PCIe error counts a BMC reports per GPU (Redfish ProcessorMetrics PCIeErrors): correctable,
-- non-fatal and fatal, kept raw with each reading. The out-of-band sweep fills them (its readings
-- do not touch gpu_counter_state); an agent may send them too, and then they count towards its
-- lifetime totals like the other counters.
ALTER TABLE gpu_health_samples
  ADD COLUMN pcie_correctable_errors bigint,
  ADD COLUMN pcie_nonfatal_errors bigint,
  ADD COLUMN pcie_fatal_errors bigint;

// One node's health batch as the agent posts it (one reading per GPU), and the checks that keep
// absurd, duplicated or out-of-window readings out of the history.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "inventory/health/counters.hpp"
#include "inventory/health/retention.hpp"
#include "inventory/health/xid_bursts.hpp"

namespace inventory::health {

struct GpuSample {
  std::string serial;
  std::string driver_epoch;  // optional: changes at every driver load
  std::optional<double> temperature_c;
  std::optional<double> power_w;
  std::optional<std::int64_t> sm_clock_mhz;
  std::optional<double> hbm_temperature_c;
  std::optional<std::int64_t> mem_clock_mhz;
  std::optional<std::int64_t> gpu_utilization_pct;
  std::uint64_t clock_event_reasons = 0;  // NVML's clocks-event (throttle) reasons bitmask
  PerCounter<std::optional<std::uint64_t>> counters{};
  bool remap_pending = false;
  bool remap_failure = false;
  std::vector<XidOccurrence> xids;  // seen since the last batch
};

struct NodeBatch {
  Seconds sampled_at;
  std::vector<GpuSample> gpus;
};

struct IngestLimits {
  std::size_t max_gpus = 64;
  std::size_t max_xids_per_gpu = 1000;
  std::chrono::seconds max_future{300};  // clock skew allowed ahead of the service
  std::chrono::seconds xid_window{300};  // XID burst window
};

// Errors name the field ("gpus[2].temperature_c"); the batch is stored whole or not at all.
// sampled_at must be within the raw retention (older data has no partition) and not in the
// future beyond the allowed skew; each XID must be at or before sampled_at, within the same
// retention.
common::Result<void> validateBatch(const NodeBatch& batch, Seconds now, const IngestLimits& limits,
                                   const RetentionSettings& retention);

}  // namespace inventory::health

#include "inventory/health/sample.hpp"

#include <cmath>
#include <set>

namespace inventory::health {
namespace {

common::Error invalid(const std::string& field, const std::string& message) {
  return common::invalidArgument("invalid_field", message, field);
}

common::Result<void> checkRange(const std::optional<double>& v, const std::string& field, double lo,
                                double hi) {
  if (!v) return common::success();
  if (!std::isfinite(*v) || *v < lo || *v > hi) {
    return invalid(field, field + " must be a number from " + std::to_string(static_cast<int>(lo)) +
                              " to " + std::to_string(static_cast<int>(hi)));
  }
  return common::success();
}

// A counter this large is a corrupt reading, not 10^15 errors: it would poison the totals.
constexpr std::uint64_t kMaxCounter = 1'000'000'000'000ULL;

common::Result<void> checkGpu(const GpuSample& g, const std::string& at, Seconds sampled_at,
                              Seconds oldest, const IngestLimits& limits) {
  if (g.serial.empty()) {
    return common::invalidArgument("missing_field", "serial is required", at + "serial");
  }
  PROV_TRY(checkRange(g.temperature_c, at + "temperature_c", -40, 150));
  PROV_TRY(checkRange(g.power_w, at + "power_w", 0, 5000));
  if (g.sm_clock_mhz && (*g.sm_clock_mhz < 0 || *g.sm_clock_mhz > 10000)) {
    return invalid(at + "sm_clock_mhz", "sm_clock_mhz must be from 0 to 10000");
  }
  PROV_TRY(checkRange(g.hbm_temperature_c, at + "hbm_temperature_c", -40, 150));
  if (g.mem_clock_mhz && (*g.mem_clock_mhz < 0 || *g.mem_clock_mhz > 20000)) {
    return invalid(at + "mem_clock_mhz", "mem_clock_mhz must be from 0 to 20000");
  }
  if (g.gpu_utilization_pct && (*g.gpu_utilization_pct < 0 || *g.gpu_utilization_pct > 100)) {
    return invalid(at + "gpu_utilization_pct", "gpu_utilization_pct must be from 0 to 100");
  }
  for (std::size_t c = 0; c < kCounterCount; ++c) {
    if (g.counters[c] && *g.counters[c] > kMaxCounter) {
      return invalid(at + std::string(nameOf(counterAt(c))), "counter value is implausibly large");
    }
  }
  if (g.xids.size() > limits.max_xids_per_gpu) {
    return invalid(at + "xids", "at most " + std::to_string(limits.max_xids_per_gpu) +
                                    " XIDs per GPU and batch");
  }
  for (std::size_t i = 0; i < g.xids.size(); ++i) {
    const auto& x = g.xids[i];
    const std::string field = at + "xids[" + std::to_string(i) + "]";
    if (x.xid <= 0 || x.xid > 100000)
      return invalid(field + ".xid", "xid must be from 1 to 100000");
    if (x.at > sampled_at || x.at < oldest) {
      return invalid(field + ".at", "an XID must be at or before sampled_at, within retention");
    }
  }
  return common::success();
}

}  // namespace

common::Result<void> validateBatch(const NodeBatch& batch, Seconds now, const IngestLimits& limits,
                                   const RetentionSettings& retention) {
  // Older readings may already have lost their partition to retention (the ingest would make it
  // again, and retention drop it again: never a failure, but kept data nobody asked for).
  const Seconds oldest = now - std::chrono::days{retention.raw_days};
  if (batch.sampled_at > now + limits.max_future) {
    return invalid("sampled_at", "sampled_at is in the future");
  }
  if (batch.sampled_at < oldest) {
    return invalid("sampled_at", "sampled_at is older than the raw retention");
  }
  if (batch.gpus.empty()) return invalid("gpus", "gpus must list at least one GPU");
  if (batch.gpus.size() > limits.max_gpus) {
    return invalid("gpus", "at most " + std::to_string(limits.max_gpus) + " GPUs per batch");
  }
  std::set<std::string> serials;
  for (std::size_t i = 0; i < batch.gpus.size(); ++i) {
    const std::string at = "gpus[" + std::to_string(i) + "].";
    PROV_TRY(checkGpu(batch.gpus[i], at, batch.sampled_at, oldest, limits));
    if (!serials.insert(batch.gpus[i].serial).second) {
      return invalid(at + "serial", "serial " + batch.gpus[i].serial + " appears twice");
    }
  }
  return common::success();
}

}  // namespace inventory::health

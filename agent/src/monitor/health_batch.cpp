// The monitor's pure decisions: the batch's JSON and what a send's answer means for the queue.
#include <cctype>
#include <ctime>

#include "agent/monitor.hpp"

namespace agent {

std::string formatUtcSeconds(std::chrono::system_clock::time_point t) {
  const std::time_t seconds = std::chrono::system_clock::to_time_t(t);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

namespace {

template <class T>
void putIf(nlohmann::json& gpu, const char* field, const std::optional<T>& value) {
  if (value) gpu[field] = *value;
}

nlohmann::json gpuJson(const GpuReading& r, const std::string& driver_epoch) {
  const HealthSample& h = r.sample;
  nlohmann::json xids = nlohmann::json::array();
  for (int xid : h.new_xid_events) xids.push_back({{"xid", xid}});
  nlohmann::json gpu = {{"serial", r.serial},
                        {"driver_epoch", driver_epoch},
                        {"temperature_c", h.temperature_c},
                        {"clock_event_reasons", h.clock_event_mask},
                        // NVML's volatile counters: since the driver loaded (docs/health.md).
                        {"ecc_corrected_volatile", h.ecc_corrected_total},
                        {"ecc_uncorrected_volatile", h.ecc_uncorrected_total},
                        {"xids", xids}};
  putIf(gpu, "power_w", h.power_w);
  putIf(gpu, "sm_clock_mhz", h.sm_clock_mhz);
  putIf(gpu, "ecc_corrected_aggregate", h.ecc_corrected_aggregate);
  putIf(gpu, "ecc_uncorrected_aggregate", h.ecc_uncorrected_aggregate);
  putIf(gpu, "remapped_correctable", h.remapped_correctable);
  putIf(gpu, "remapped_uncorrectable", h.remapped_uncorrectable);
  putIf(gpu, "retired_pages", h.retired_pages);
  putIf(gpu, "nvlink_crc_errors", h.nvlink_crc_errors);
  putIf(gpu, "nvlink_replay_errors", h.nvlink_replay_errors);
  putIf(gpu, "nvlink_recovery_errors", h.nvlink_recovery_errors);
  putIf(gpu, "hbm_temperature_c", h.hbm_temperature_c);
  putIf(gpu, "mem_clock_mhz", h.mem_clock_mhz);
  putIf(gpu, "pcie_replay_errors", h.pcie_replay_errors);
  putIf(gpu, "gpu_utilization_pct", h.gpu_utilization_pct);
  putIf(gpu, "pcie_correctable_errors", h.pcie_correctable_errors);
  putIf(gpu, "pcie_nonfatal_errors", h.pcie_nonfatal_errors);
  putIf(gpu, "pcie_fatal_errors", h.pcie_fatal_errors);
  if (h.remapped_correctable || h.remapped_uncorrectable) {
    gpu["remap_pending"] = h.remap_pending;
    gpu["remap_failure"] = h.remap_failure;
  }
  return gpu;
}

}  // namespace

nlohmann::json healthBatchJson(const std::string& sampled_at, const std::string& driver_epoch,
                               const std::vector<GpuReading>& readings) {
  nlohmann::json gpus = nlohmann::json::array();
  for (const GpuReading& r : readings) gpus.push_back(gpuJson(r, driver_epoch));
  return {{"sampled_at", sampled_at}, {"gpus", gpus}};
}

std::string driverEpoch(const std::string& driver_version, const std::string& boot_id) {
  std::string id;
  for (char c : boot_id) {
    if (std::isxdigit(static_cast<unsigned char>(c)) != 0) id += c;
    if (id.size() == 8) break;
  }
  return id.empty() ? driver_version : driver_version + "@" + id;
}

SendOutcome classifySend(const common::Result<HealthAck>& sent) {
  return sent ? SendOutcome::kTaken : classifyFailure(sent.error());
}

SendOutcome classifyFailure(const common::Error& error) {
  using common::ErrorKind;
  switch (error.kind) {
    case ErrorKind::kUnauthenticated:
    case ErrorKind::kPermissionDenied:
      return SendOutcome::kCredentialRefused;
    case ErrorKind::kInvalidArgument:
    case ErrorKind::kConflict:
    case ErrorKind::kNotFound:
    case ErrorKind::kPayloadTooLarge:
    case ErrorKind::kUnprocessable:
    case ErrorKind::kUnsupportedMediaType:
      return SendOutcome::kRefused;
    default:
      return SendOutcome::kRetryLater;
  }
}

}  // namespace agent

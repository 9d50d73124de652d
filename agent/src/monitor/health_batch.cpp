// The monitor's pure decisions: the batch's JSON and what a send's answer means for the queue.
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

nlohmann::json healthBatchJson(const std::string& sampled_at, const std::string& driver_epoch,
                               const std::vector<GpuReading>& readings) {
  nlohmann::json gpus = nlohmann::json::array();
  for (const GpuReading& r : readings) {
    nlohmann::json xids = nlohmann::json::array();
    for (int xid : r.sample.new_xid_events) xids.push_back({{"xid", xid}});
    gpus.push_back({{"serial", r.serial},
                    {"driver_epoch", driver_epoch},
                    {"temperature_c", r.sample.temperature_c},
                    {"clock_event_reasons", r.sample.clock_event_mask},
                    // NVML's volatile counters: since the driver loaded (docs/health.md).
                    {"ecc_corrected_volatile", r.sample.ecc_corrected_total},
                    {"ecc_uncorrected_volatile", r.sample.ecc_uncorrected_total},
                    {"xids", xids}});
  }
  return {{"sampled_at", sampled_at}, {"gpus", gpus}};
}

SendOutcome classifySend(const common::Result<HealthAck>& sent) {
  using common::ErrorKind;
  if (sent) return SendOutcome::kTaken;
  switch (sent.error().kind) {
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

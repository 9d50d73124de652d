// The simulated GPU wipe: real figures (bytes from memory_mib, seconds from 0.9 x the model's
// nominal HBM bandwidth) and the wipe faults, without touching memory or sleeping.
#include "agent/sim_backend.hpp"

#include <algorithm>

namespace agent {

namespace {

constexpr std::uint64_t kMiB = 1ULL << 20;
constexpr std::uint64_t kDriverReservedMiB = 512;  // what the driver keeps on a real part
constexpr double kWipeEfficiency = 0.9;            // of nominal copy bandwidth

WipePass simulatedPass(std::string name, std::uint64_t bytes, double gbps) {
  WipePass pass;
  pass.name = std::move(name);
  pass.bytes_written = bytes;
  pass.bytes_verified = bytes;
  pass.seconds = gbps > 0 ? 2.0 * static_cast<double>(bytes) / (gbps * 1e9) : 0;  // write + read
  pass.gbps = pass.seconds > 0 ? static_cast<double>(bytes) / 1e9 / pass.seconds : 0;
  return pass;
}

void addPass(GpuWipeReport& report, WipePass pass) {
  report.bytes_written += pass.bytes_written;
  report.bytes_verified += pass.bytes_verified;
  report.mismatches += pass.mismatches;
  report.seconds += pass.seconds;
  report.passes.push_back(std::move(pass));
}

}  // namespace

common::Result<GpuWipeReport> SimulatedGpuBackend::wipeMemory(int index, const WipePlan& plan) {
  PROV_TRY(checkPresent(index));
  GpuWipeReport report;
  report.total_bytes = nominal_.memory_mib * kMiB;
  std::uint64_t usual = report.total_bytes - kDriverReservedMiB * kMiB;
  double factor = 1;
  if (const SimFault* less = fault(index, "less_memory"))
    factor = std::clamp(less->factor, 0.0, 1.0);
  report.covered_bytes = static_cast<std::uint64_t>(static_cast<double>(usual) * factor);
  report.unreachable.push_back(
      {"driver_reserved_or_in_use", report.total_bytes - report.covered_bytes});
  double gbps = kWipeEfficiency * nominal_.hbm_gbps;
  const SimFault* stuck = fault(index, "stuck_bits");
  for (const char* name : {"pattern", "random", "zero"}) {
    if (std::string_view(name) == "random" && fault(index, "off_bus_mid_wipe") != nullptr) {
      state_[static_cast<std::size_t>(index)].off_bus = true;
      report.error = "GPU fell off the bus during pass random";
      break;
    }
    WipePass pass = simulatedPass(name, report.covered_bytes, gbps);
    if (stuck != nullptr && std::string_view(name) != "zero") pass.mismatches = stuck->count;
    addPass(report, std::move(pass));
  }
  if (report.seconds > 0)
    report.gbps = static_cast<double>(report.bytes_written) / 1e9 / report.seconds;
  if (report.error.empty()) report.reset = plan.reset_gpus ? "done" : "skipped";
  return report;
}

}  // namespace agent

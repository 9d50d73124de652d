// The GPU wipe runner: identity and timestamps around each backend wipe.
#include "agent/wipe_runner.hpp"

#include <chrono>
#include <ctime>

namespace agent {

namespace {

std::string nowIso8601() {
  std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

GpuWipeReport wipeOne(const WipePlan& plan, GpuBackend& backend, const GpuFacts& gpu) {
  std::string started = nowIso8601();
  auto wiped = backend.wipeMemory(gpu.index, plan);
  GpuWipeReport report = wiped ? std::move(*wiped) : GpuWipeReport{};
  if (!wiped) report.error = wiped.error().message;
  report.gpu_serial = gpu.serial;
  report.gpu_uuid = gpu.uuid;
  report.gpu_model = gpu.model;
  if (report.total_bytes == 0) report.total_bytes = gpu.memory_mib << 20;
  report.started_at = std::move(started);
  report.finished_at = nowIso8601();
  return report;
}

}  // namespace

WipeReport runWipe(const WipePlan& plan, GpuBackend& backend, const std::vector<GpuFacts>& gpus,
                   const std::string& tool_version) {
  WipeReport report;
  report.tool_version = tool_version;
  report.backend = backend.name();
  for (const auto& gpu : gpus) report.gpus.push_back(wipeOne(plan, backend, gpu));
  return report;
}

}  // namespace agent

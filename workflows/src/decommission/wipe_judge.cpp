#include "workflows/decommission/wipe_judge.hpp"

#include <nlohmann/json.hpp>

#include <array>

namespace workflows::decommission {
namespace {

using nlohmann::json;

constexpr std::array<const char*, 3> kGpuPasses = {"pattern", "random", "zero"};

const agent::WipePass* findPass(const agent::GpuWipeReport& gpu, const std::string& name) {
  for (const auto& pass : gpu.passes) {
    if (pass.name == name) return &pass;
  }
  return nullptr;
}

std::optional<std::string> passFailure(const agent::GpuWipeReport& gpu, const char* name) {
  const agent::WipePass* pass = findPass(gpu, name);
  if (pass == nullptr) return std::string("pass ") + name + " did not run";
  if (pass->mismatches != 0) {
    return std::string("pass ") + name + ": " + std::to_string(pass->mismatches) +
           " words read back differ from what was written";
  }
  if (pass->bytes_written != gpu.covered_bytes || pass->bytes_verified != gpu.covered_bytes) {
    return std::string("pass ") + name + " wrote " + std::to_string(pass->bytes_written) +
           " and verified " + std::to_string(pass->bytes_verified) + " of " +
           std::to_string(gpu.covered_bytes) + " covered bytes";
  }
  return std::nullopt;
}

std::optional<inventory::Timestamp> timeOrNone(const std::string& text) {
  if (text.empty()) return std::nullopt;
  return text;
}

std::string verifiedBy(const agent::WipeReport& report, const char* how) {
  return report.tool + " " + report.tool_version + " " + how;
}

json gpuDetail(const agent::GpuWipeReport& gpu, const agent::WipeReport& report) {
  json unreachable = json::array();
  for (const auto& u : gpu.unreachable)
    unreachable.push_back({{"what", u.what}, {"bytes", u.bytes}});
  json passes = json::array();
  for (const auto& p : gpu.passes) {
    passes.push_back({{"name", p.name},
                      {"bytes_written", p.bytes_written},
                      {"bytes_verified", p.bytes_verified},
                      {"mismatches", p.mismatches},
                      {"gbps", p.gbps}});
  }
  return {{"gpu_uuid", gpu.gpu_uuid},
          {"total_bytes", gpu.total_bytes},
          {"covered_bytes", gpu.covered_bytes},
          {"unreachable", unreachable},
          {"passes", passes},
          {"mismatches", gpu.mismatches},
          {"reset", gpu.reset},
          {"backend", report.backend},
          {"error", gpu.error}};
}

json driveDetail(const agent::DriveReport& drive) {
  json fallbacks = json::array();
  for (const auto& f : drive.fallbacks) {
    fallbacks.push_back({{"method", f.method}, {"reason", f.reason}});
  }
  const auto& v = drive.verification;
  return {{"path", drive.path},
          {"interface", drive.interface},
          {"capacity_bytes", drive.capacity_bytes},
          {"method", drive.method},
          {"fallbacks", fallbacks},
          {"verification",
           {{"method", v.method},
            {"canaries_written", v.canaries_written},
            {"canaries_remaining", v.canaries_remaining},
            {"sample_coverage", v.sample_coverage},
            {"sample_blocks", v.sample_blocks},
            {"unchanged_blocks", v.unchanged_blocks}}},
          {"error", drive.error}};
}

double coverageOf(const agent::GpuWipeReport& gpu) {
  if (gpu.total_bytes == 0) return 0;
  return static_cast<double>(gpu.covered_bytes) / static_cast<double>(gpu.total_bytes);
}

}  // namespace

std::optional<std::string> gpuWipeFailure(const agent::GpuWipeReport& gpu, double min_coverage) {
  if (!gpu.error.empty()) return gpu.error;
  if (gpu.total_bytes == 0) return std::string("the agent reported no device memory");
  for (const char* name : kGpuPasses) {
    if (auto failure = passFailure(gpu, name)) return failure;
  }
  if (static_cast<double>(gpu.covered_bytes) <
      min_coverage * static_cast<double>(gpu.total_bytes)) {
    return "wiped " + std::to_string(gpu.covered_bytes) + " of " + std::to_string(gpu.total_bytes) +
           " bytes, below the required " + std::to_string(static_cast<int>(min_coverage * 100)) +
           "% coverage";
  }
  return std::nullopt;
}

std::optional<std::string> driveWipeFailure(const agent::DriveReport& drive) {
  if (drive.result != "passed") {
    return drive.error.empty() ? "result " + drive.result : drive.error;
  }
  if (drive.method == "none") return std::string("no sanitization method was applied");
  const auto& v = drive.verification;
  if (v.canaries_remaining != 0) {
    return std::to_string(v.canaries_remaining) + " canaries survived the erase";
  }
  if (v.unchanged_blocks != 0) {
    return std::to_string(v.unchanged_blocks) + " sampled blocks unchanged by the erase";
  }
  return std::nullopt;
}

inventory::DeviceSanitization gpuRecord(const agent::WipeReport& report,
                                        const agent::GpuWipeReport& gpu, double min_coverage) {
  inventory::DeviceSanitization d;
  d.serial = gpu.gpu_serial;
  d.media_type = "gpu_hbm";
  d.manufacturer = "NVIDIA";
  d.model = gpu.gpu_model;
  d.sanitization = "clear";  // NIST: overwrite with verification is a Clear
  d.technique = "pattern+random+zero overwrite";
  d.tool = report.tool;
  d.tool_version = report.tool_version;
  d.verification_method = "full read-back on device";
  d.verification_coverage = coverageOf(gpu);
  d.verified_by = verifiedBy(report, "verify pass");
  const auto failure = gpuWipeFailure(gpu, min_coverage);
  d.result = failure ? "failed" : "passed";
  d.failure = failure.value_or("");
  d.detail_json = gpuDetail(gpu, report).dump();
  d.started_at = timeOrNone(gpu.started_at);
  d.finished_at = timeOrNone(gpu.finished_at);
  return d;
}

inventory::DeviceSanitization driveRecord(const agent::WipeReport& report,
                                          const agent::DriveReport& drive) {
  inventory::DeviceSanitization d;
  d.serial = drive.serial;
  d.media_type = drive.media_type;
  d.manufacturer = drive.manufacturer;
  d.model = drive.model;
  d.sanitization = drive.nist_level;
  d.technique = drive.technique;
  d.tool = drive.tool.empty() ? report.tool : drive.tool;
  d.tool_version = drive.tool.empty() ? report.tool_version : drive.tool_version;
  d.verification_method = drive.verification.method;
  d.verification_coverage = drive.verification.sample_coverage;
  d.verified_by = verifiedBy(report, "canary and sample read-back");
  const auto failure = driveWipeFailure(drive);
  d.result = failure ? "failed" : "passed";
  d.failure = failure.value_or("");
  d.detail_json = driveDetail(drive).dump();
  d.started_at = timeOrNone(drive.started_at);
  d.finished_at = timeOrNone(drive.finished_at);
  return d;
}

WipeJudgement judgeWipeReport(const agent::WipeReport& report, const WipeCriteria& criteria) {
  WipeJudgement judged;
  for (const auto& gpu : report.gpus) {
    judged.devices.push_back(gpuRecord(report, gpu, criteria.min_gpu_coverage));
  }
  for (const auto& drive : report.drives) judged.devices.push_back(driveRecord(report, drive));
  for (const auto& d : judged.devices) {
    if (d.result != "passed") judged.failures.push_back({d.serial, d.failure});
  }
  const auto gpus = static_cast<int>(report.gpus.size());
  if (criteria.expected_gpus > 0 && gpus < criteria.expected_gpus) {
    judged.failures.push_back({"", "the report names " + std::to_string(gpus) +
                                       " GPUs, the node has " +
                                       std::to_string(criteria.expected_gpus)});
  }
  return judged;
}

std::string describeFailures(const std::vector<DeviceFailure>& failures) {
  if (failures.empty()) return "";
  const auto& first = failures.front();
  std::string text = first.serial.empty() ? first.what : first.serial + ": " + first.what;
  if (failures.size() > 1) text += " (and " + std::to_string(failures.size() - 1) + " more)";
  return text;
}

}  // namespace workflows::decommission

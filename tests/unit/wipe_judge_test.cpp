// The service's judgement of an agent's wipe report: every rule can fail a device on its own.
#include <catch2/catch.hpp>

#include "workflows/decommission/wipe_judge.hpp"

namespace {

using workflows::decommission::driveWipeFailure;
using workflows::decommission::gpuWipeFailure;
using workflows::decommission::judgeWipeReport;
using workflows::decommission::WipeCriteria;

constexpr std::uint64_t kTotal = 80ull << 30;
constexpr std::uint64_t kCovered = 79ull << 30;

agent::GpuWipeReport goodGpu(const std::string& serial = "GPU-1") {
  agent::GpuWipeReport gpu;
  gpu.gpu_serial = serial;
  gpu.gpu_model = "NVIDIA H100 80GB HBM3";
  gpu.total_bytes = kTotal;
  gpu.covered_bytes = kCovered;
  for (const char* name : {"pattern", "random", "zero"}) {
    gpu.passes.push_back({name, kCovered, kCovered, 0, 1.0, 1000});
  }
  gpu.started_at = "2026-12-03T23:10:00Z";
  gpu.finished_at = "2026-12-03T23:11:00Z";
  return gpu;
}

agent::DriveReport goodDrive(const std::string& serial = "NVME-1") {
  agent::DriveReport drive;
  drive.serial = serial;
  drive.model = "Samsung PM1733";
  drive.media_type = "ssd";
  drive.method = "nvme_sanitize_crypto";
  drive.nist_level = "purge";
  drive.technique = "cryptographic erase";
  drive.verification.canaries_written = 16;
  drive.verification.sample_coverage = 0.01;
  drive.verification.sample_blocks = 1000;
  drive.result = "passed";
  return drive;
}

}  // namespace

TEST_CASE("a GPU wiped by all three verified passes over enough memory passes", "[wipe_judge]") {
  CHECK_FALSE(gpuWipeFailure(goodGpu(), 0.95).has_value());
}

TEST_CASE("a GPU with an agent error fails with that error", "[wipe_judge]") {
  auto gpu = goodGpu();
  gpu.error = "GPU fell off the bus during pass random";
  CHECK(gpuWipeFailure(gpu, 0.95) == gpu.error);
}

TEST_CASE("a GPU missing a pass fails naming the pass", "[wipe_judge]") {
  auto gpu = goodGpu();
  gpu.passes.pop_back();
  auto failure = gpuWipeFailure(gpu, 0.95);
  REQUIRE(failure);
  CHECK(failure->find("zero") != std::string::npos);
}

TEST_CASE("a GPU whose pass verified less than it wrote fails", "[wipe_judge]") {
  auto gpu = goodGpu();
  gpu.passes[1].bytes_verified = kCovered - 4096;
  auto failure = gpuWipeFailure(gpu, 0.95);
  REQUIRE(failure);
  CHECK(failure->find("random") != std::string::npos);
}

TEST_CASE("a GPU whose pass wrote less than the covered bytes fails", "[wipe_judge]") {
  auto gpu = goodGpu();
  gpu.passes[0].bytes_written = kCovered / 2;
  gpu.passes[0].bytes_verified = kCovered / 2;
  CHECK(gpuWipeFailure(gpu, 0.95).has_value());
}

TEST_CASE("a GPU with mismatching words (stuck bits) fails", "[wipe_judge]") {
  auto gpu = goodGpu();
  gpu.passes[2].mismatches = 3;
  auto failure = gpuWipeFailure(gpu, 0.95);
  REQUIRE(failure);
  CHECK(failure->find("3 words") != std::string::npos);
}

TEST_CASE("a GPU below the coverage threshold fails; at it, it passes", "[wipe_judge]") {
  auto gpu = goodGpu();
  CHECK(gpuWipeFailure(gpu, 0.99).has_value());  // 79/80 = 0.9875
  CHECK_FALSE(gpuWipeFailure(gpu, 0.9875).has_value());
}

TEST_CASE("a drive erased and verified passes; each rule fails it alone", "[wipe_judge]") {
  CHECK_FALSE(driveWipeFailure(goodDrive()).has_value());
  auto failed = goodDrive();
  failed.result = "failed";
  failed.error = "sanitize aborted";
  CHECK(driveWipeFailure(failed) == "sanitize aborted");
  auto none = goodDrive();
  none.method = "none";
  CHECK(driveWipeFailure(none).has_value());
  auto canaries = goodDrive();
  canaries.verification.canaries_remaining = 2;
  CHECK(driveWipeFailure(canaries)->find("2 canaries") != std::string::npos);
  auto unchanged = goodDrive();
  unchanged.verification.unchanged_blocks = 5;
  CHECK(driveWipeFailure(unchanged)->find("5 sampled blocks") != std::string::npos);
}

TEST_CASE("the judgement records every device with its NIST fields", "[wipe_judge]") {
  agent::WipeReport report;
  report.tool_version = "1.4.0";
  report.backend = "simulated";
  report.gpus = {goodGpu("GPU-1"), goodGpu("GPU-2")};
  report.gpus[1].passes[1].mismatches = 1;
  report.drives = {goodDrive()};
  auto judged = judgeWipeReport(report, WipeCriteria{0.95, 2});
  REQUIRE(judged.devices.size() == 3);
  CHECK(judged.devices[0].media_type == "gpu_hbm");
  CHECK(judged.devices[0].sanitization == "clear");
  CHECK(judged.devices[0].result == "passed");
  CHECK(judged.devices[0].verification_coverage == Approx(79.0 / 80.0));
  CHECK(judged.devices[0].tool == "provisioner-agent");
  CHECK(judged.devices[0].tool_version == "1.4.0");
  CHECK(judged.devices[0].started_at == "2026-12-03T23:10:00Z");
  CHECK(judged.devices[1].result == "failed");
  CHECK(judged.devices[2].sanitization == "purge");
  CHECK(judged.devices[2].technique == "cryptographic erase");
  CHECK(judged.devices[2].verification_coverage == Approx(0.01));
  REQUIRE(judged.failures.size() == 1);
  CHECK(judged.failures[0].serial == "GPU-2");
  CHECK_FALSE(judged.passed());
  CHECK(workflows::decommission::describeFailures(judged.failures).rfind("GPU-2: ", 0) == 0);
}

TEST_CASE("a report naming fewer GPUs than the node has fails as a whole", "[wipe_judge]") {
  agent::WipeReport report;
  report.gpus = {goodGpu()};
  auto judged = judgeWipeReport(report, WipeCriteria{0.95, 8});
  REQUIRE(judged.failures.size() == 1);
  CHECK(judged.failures[0].serial.empty());
  CHECK(judged.failures[0].what.find("1 GPUs, the node has 8") != std::string::npos);
  CHECK(judgeWipeReport(report, WipeCriteria{0.95, 1}).passed());
}

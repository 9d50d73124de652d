// sanitizeDrive against the simulated drives, one fault at a time, on a virtual clock.
#include <catch2/catch.hpp>

#include "agent/drives.hpp"
#include "agent/drives_sim.hpp"
#include "agent/sim_backend.hpp"

using agent::DriveReport;
using agent::SimDriveConfig;
using agent::SimulatedDriveBackend;

namespace {

constexpr std::uint64_t kCapacity = 16ULL << 20;  // 4096 blocks

struct SimDrives {
  explicit SimDrives(std::vector<agent::SimDriveFault> faults = {}) : backend(configWith(faults)) {}

  static SimDriveConfig configWith(std::vector<agent::SimDriveFault> faults) {
    SimDriveConfig config;
    config.count = 2;
    config.host_serial = "HOST-7";
    config.capacity_bytes = kCapacity;
    config.faults = std::move(faults);
    return config;
  }

  DriveReport sanitize(int index, double coverage = 0.05) {
    auto drives = backend.listDrives();
    REQUIRE(drives.ok());
    agent::WipePlan plan;
    plan.seed = 99;
    plan.drive_sample_coverage = coverage;
    const auto& drive = drives.value()[static_cast<std::size_t>(index)];
    options.tool_version = "9.9.9";
    return agent::sanitizeDrive(backend, drive, plan, agent::planDriveErase(drive.capabilities),
                                clock, options);
  }

  SimulatedDriveBackend backend;
  agent::VirtualEraseClock clock;
  agent::DriveEraseOptions options;
};

}  // namespace

TEST_CASE("sanitize on a healthy simulated drive purges by crypto erase and verifies", "[drives]") {
  SimDrives sim;
  auto start = sim.clock.now();
  DriveReport report = sim.sanitize(0);
  CHECK(report.result == "passed");
  CHECK(report.error.empty());
  CHECK(report.serial == "HOST-7-NVME0");
  CHECK(report.interface == "nvme");
  CHECK(report.capacity_bytes == kCapacity);
  CHECK(report.path == "in_band");
  CHECK(report.method == "nvme_sanitize_crypto");
  CHECK(report.nist_level == "purge");
  CHECK(report.technique == "cryptographic erase");
  CHECK(report.tool == "provisioner-agent");
  CHECK(report.tool_version == "9.9.9");
  CHECK(report.fallbacks.empty());
  CHECK(report.verification.method == "canary+sample");
  CHECK(report.verification.canaries_written == agent::kCanaryCount);
  CHECK(report.verification.canaries_remaining == 0);
  CHECK(report.verification.sample_coverage == 0.05);
  CHECK(report.verification.sample_blocks == 205);  // ceil(0.05 x 4096)
  CHECK(report.verification.unchanged_blocks == 0);
  CHECK_FALSE(report.started_at.empty());
  CHECK_FALSE(report.finished_at.empty());
  CHECK(sim.backend.erasesCompleted(0) == 1);
  CHECK(sim.backend.erasesCompleted(1) == 0);
  CHECK(sim.clock.now() - start == 2 * sim.options.poll_interval);  // three polls, two waits
}

TEST_CASE("sanitize at 100% coverage reads every block", "[drives]") {
  SimDrives sim;
  DriveReport report = sim.sanitize(1, 1.0);
  CHECK(report.result == "passed");
  CHECK(report.verification.sample_blocks == 4096);
  CHECK(report.verification.unchanged_blocks == 0);
}

TEST_CASE("sanitize without sanitize support falls back to format crypto erase, recorded",
          "[drives]") {
  SimDrives sim({{0, "sanitize_unsupported"}});
  DriveReport report = sim.sanitize(0);
  CHECK(report.result == "passed");
  CHECK(report.method == "nvme_format_ses2");
  CHECK(report.nist_level == "purge");
  REQUIRE(report.fallbacks.size() == 2);
  CHECK(report.fallbacks[0].method == "nvme_sanitize_crypto");
  CHECK(report.fallbacks[1].method == "nvme_sanitize_block");
  CHECK(report.fallbacks[1].reason.find("not support") != std::string::npos);
}

TEST_CASE("sanitize refused at run time falls back to the next method, recorded", "[drives]") {
  SimDrives sim({{0, "refuses_sanitize"}});
  DriveReport report = sim.sanitize(0);
  CHECK(report.result == "passed");
  CHECK(report.method == "nvme_format_ses2");
  REQUIRE(report.fallbacks.size() == 2);
  CHECK(report.fallbacks[0].method == "nvme_sanitize_crypto");
  CHECK(report.fallbacks[0].reason.find("refused") != std::string::npos);
  CHECK(report.fallbacks[0].reason.find("Invalid Field") != std::string::npos);
}

TEST_CASE("sanitize on a drive that keeps its data fails verification", "[drives]") {
  SimDrives sim({{1, "keeps_data"}});
  DriveReport report = sim.sanitize(1);
  CHECK(report.result == "failed");
  CHECK(report.method == "nvme_sanitize_crypto");  // what it tried
  CHECK(report.nist_level == "none");              // what it reached
  CHECK(report.verification.canaries_remaining == agent::kCanaryCount);
  CHECK(report.verification.unchanged_blocks > 0);
  CHECK(report.verification.unchanged_blocks < report.verification.sample_blocks);  // blanks
  CHECK(report.error.find("verification failed") != std::string::npos);
  CHECK(report.error.find("8 of 8 canaries remain") != std::string::npos);
}

TEST_CASE("sanitize of an erase that never completes fails at the deadline", "[drives]") {
  SimDrives sim({{0, "erase_never_completes"}});
  sim.options.timeout = std::chrono::minutes(10);
  sim.options.poll_interval = std::chrono::seconds(5);
  auto start = sim.clock.now();
  DriveReport report = sim.sanitize(0);
  CHECK(report.result == "failed");
  CHECK(report.nist_level == "none");
  CHECK(report.error.find("did not complete within 600 s") != std::string::npos);
  CHECK(report.error.find("42%") != std::string::npos);
  CHECK(sim.clock.now() - start == std::chrono::minutes(10));  // bounded: 120 waits of 5 s
  CHECK(report.verification.canaries_remaining == 0);          // never checked
}

TEST_CASE("sanitize of an erase the drive reports failed fails naming it", "[drives]") {
  SimDrives sim({{0, "erase_fails"}});
  DriveReport report = sim.sanitize(0);
  CHECK(report.result == "failed");
  CHECK(report.method == "nvme_sanitize_crypto");
  CHECK(report.nist_level == "none");
  CHECK(report.error.find("SSTAT 3h") != std::string::npos);
  CHECK(sim.backend.erasesCompleted(0) == 0);
}

TEST_CASE("sanitize of an unreadable drive still erases it and says it is unverified", "[drives]") {
  SimDrives sim({{1, "unreadable"}});
  DriveReport report = sim.sanitize(1);
  CHECK(sim.backend.erasesCompleted(1) == 1);  // the data went, the proof could not be had
  CHECK(report.result == "failed");
  CHECK(report.nist_level == "none");
  CHECK(report.error.find("erased, but not verifiable") != std::string::npos);
  CHECK(report.error.find("Unrecovered Read Error") != std::string::npos);
  CHECK(report.verification.canaries_written == agent::kCanaryCount);
  CHECK(report.verification.sample_blocks == 0);
}

TEST_CASE("sanitize on a drive without any erase method fails with method none", "[drives]") {
  SimDrives sim({{0, "no_erase_support"}});
  DriveReport report = sim.sanitize(0);
  CHECK(report.result == "failed");
  CHECK(report.method == "none");
  CHECK(report.nist_level == "none");
  CHECK(report.fallbacks.size() == 7);
  CHECK(report.error.find("no erase method") != std::string::npos);
  CHECK(report.verification.canaries_written == 0);  // nothing written to a drive left as is
}

TEST_CASE("wipe of drives skips the serials the service erases out of band", "[drives]") {
  SimDrives sim;
  agent::WipePlan plan;
  plan.seed = 3;
  plan.skip_drive_serials = {"HOST-7-NVME1"};
  auto wipe = agent::wipeDrives(sim.backend, plan, sim.clock, sim.options);
  CHECK(wipe.error.empty());
  REQUIRE(wipe.drives.size() == 1);
  CHECK(wipe.drives[0].serial == "HOST-7-NVME0");
  CHECK(wipe.skipped == std::vector<std::string>{"HOST-7-NVME1"});
  CHECK(sim.backend.erasesCompleted(1) == 0);
}

TEST_CASE("sim config reads drives, serials and drive faults", "[drives]") {
  auto config = agent::parseSimConfigText(
      R"({"host_serial": "H1", "drives": 3, "drive_capacity_bytes": 8388608,
          "drive_serials": ["S-A"], "drive_faults": [{"drive": 2, "kind": "keeps_data"}]})");
  REQUIRE(config.ok());
  auto drives = agent::simDriveConfigOf(*config);
  CHECK(drives.count == 3);
  CHECK(drives.capacity_bytes == 8388608);
  SimulatedDriveBackend backend(drives);
  auto listed = backend.listDrives();
  REQUIRE(listed.ok());
  REQUIRE(listed->size() == 3);
  CHECK((*listed)[0].serial == "S-A");
  CHECK((*listed)[2].serial == "H1-NVME2");
  CHECK(agent::parseSimConfigText("{}")->drives == 2);

  auto bad = agent::parseSimConfigText(R"({"drive_faults": [{"drive": 2, "kind": "keeps_data"}]})");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().field == "drive_faults[0].drive");
  auto unknown = agent::parseSimConfigText(R"({"drive_faults": [{"drive": 0, "kind": "x"}]})");
  REQUIRE_FALSE(unknown.ok());
  CHECK(unknown.error().message.find("unknown drive fault") != std::string::npos);
}

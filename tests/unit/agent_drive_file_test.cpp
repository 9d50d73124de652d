// The file drive backend on a temporary file: the real I/O path of sanitizeDrive.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>

#include "agent/drives.hpp"
#include "agent/drives_file.hpp"

namespace {

// A temporary file of `bytes` of non-blank data, removed at the end of the test.
struct TempDrive {
  explicit TempDrive(std::uint64_t bytes) {
    path = std::filesystem::temp_directory_path() /
           ("agent-drive-" + std::to_string(std::random_device{}()) + ".img");
    std::ofstream out(path, std::ios::binary);
    std::mt19937_64 rng(1);
    for (std::uint64_t i = 0; i < bytes / 8; ++i) {
      std::uint64_t word = rng();
      out.write(reinterpret_cast<const char*>(&word), sizeof word);
    }
  }
  ~TempDrive() { std::filesystem::remove(path); }

  std::filesystem::path path;
};

bool allZero(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  char c = 0;
  while (in.get(c)) {
    if (c != 0) return false;
  }
  return true;
}

}  // namespace

TEST_CASE("file backend overwrites a temp file: canaries gone, every byte zero", "[drives]") {
  TempDrive file(4ULL << 20);  // 1024 blocks
  agent::FileDriveBackend backend({file.path.string()}, /*chunk_bytes=*/1ULL << 20);
  auto drives = backend.listDrives();
  REQUIRE(drives.ok());
  REQUIRE(drives->size() == 1);
  const agent::DriveInfo& drive = drives->front();
  CHECK(drive.interface == "file");
  CHECK(drive.capacity_bytes == 4ULL << 20);
  auto erase_plan = agent::planDriveErase(drive.capabilities);
  CHECK(erase_plan.method == agent::EraseMethod::kOverwrite);

  agent::WipePlan plan;
  plan.seed = 5;
  plan.drive_sample_coverage = 0.1;
  agent::VirtualEraseClock clock;
  agent::DriveEraseOptions options;
  auto start = clock.now();
  auto report = agent::sanitizeDrive(backend, drive, plan, erase_plan, clock, options);
  CHECK(report.result == "passed");
  CHECK(report.error.empty());
  CHECK(report.method == "overwrite");
  CHECK(report.nist_level == "clear");
  CHECK(report.technique == "overwrite with zeros");
  CHECK(report.interface == "file");
  CHECK(report.fallbacks.size() == 6);
  CHECK(report.verification.canaries_written == agent::kCanaryCount);
  CHECK(report.verification.canaries_remaining == 0);
  CHECK(report.verification.sample_blocks == 103);  // ceil(0.1 x 1024)
  CHECK(report.verification.unchanged_blocks == 0);
  CHECK(clock.now() - start == 3 * options.poll_interval);  // four 1 MiB chunks
  CHECK(allZero(file.path));
}

TEST_CASE("file backend canaries are on disk before the erase", "[drives]") {
  TempDrive file(1ULL << 20);
  agent::FileDriveBackend backend({file.path.string()});
  auto drives = backend.listDrives();
  REQUIRE(drives.ok());
  const agent::DriveInfo& drive = drives->front();
  auto canary = agent::canaryBlock(1, 3, drive.block_size);
  REQUIRE(backend.writeBlock(drive, 3, canary).ok());
  std::vector<std::uint8_t> read(drive.block_size);
  REQUIRE(backend.readBlock(drive, 3, read).ok());
  CHECK(read == canary);
  CHECK_FALSE(backend.startErase(drive, agent::EraseMethod::kNvmeSanitizeCrypto).ok());
  CHECK_FALSE(backend.writeBlock(drive, 256, canary).ok());  // past the end
}

TEST_CASE("file backend fails listing a path that does not exist", "[drives]") {
  agent::FileDriveBackend backend({"/nonexistent/agent-drive.img"});
  auto drives = backend.listDrives();
  REQUIRE_FALSE(drives.ok());
  CHECK(drives.error().message.find("/nonexistent/agent-drive.img") != std::string::npos);
}

// A block device (a loop device over an image) when PROVISIONER_TEST_DRIVE_DEVICE names one: the
// device is overwritten. Without the variable the case only says it did not run.
TEST_CASE("file backend overwrites the block device PROVISIONER_TEST_DRIVE_DEVICE", "[drives]") {
  const char* device = std::getenv("PROVISIONER_TEST_DRIVE_DEVICE");
  if (device == nullptr || *device == '\0') {
    WARN("PROVISIONER_TEST_DRIVE_DEVICE unset: no block device overwritten");
    return;
  }
  REQUIRE(std::filesystem::is_block_file(device));
  agent::FileDriveBackend backend({device}, /*chunk_bytes=*/1ULL << 20);
  auto drives = backend.listDrives();
  REQUIRE(drives.ok());
  const agent::DriveInfo& drive = drives->front();
  REQUIRE(drive.capacity_bytes >= 1ULL << 20);
  std::vector<std::uint8_t> data(drive.block_size, 0x5A);
  for (std::uint64_t lba = 0; lba < drive.capacity_bytes / drive.block_size; lba += 7) {
    REQUIRE(backend.writeBlock(drive, lba, data).ok());  // data the erase must remove
  }
  agent::WipePlan plan;
  plan.seed = 11;
  plan.drive_sample_coverage = 1.0;
  agent::VirtualEraseClock clock;
  auto report =
      agent::sanitizeDrive(backend, drive, plan, agent::planDriveErase(drive.capabilities), clock,
                           agent::DriveEraseOptions{});
  CHECK(report.result == "passed");
  CHECK(report.verification.canaries_remaining == 0);
  CHECK(report.verification.sample_blocks == drive.capacity_bytes / drive.block_size);
  CHECK(report.verification.unchanged_blocks == 0);
  CHECK(allZero(device));
}

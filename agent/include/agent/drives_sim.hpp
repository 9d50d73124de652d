// The simulated drive backend: NVMe drives with sparse contents and injectable faults, for tests,
// the simulator's nodes and demos. Nothing sleeps: an erase completes after a number of polls.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "agent/drives.hpp"

namespace agent {

// Kinds: "sanitize_unsupported" (no Sanitize capability: the plan falls back to Format),
// "refuses_sanitize" (advertises Sanitize, then refuses the command: a runtime fallback),
// "no_erase_support" (no Sanitize, no Format: the plan is "none"), "keeps_data" (every erase
// reports success and changes nothing), "erase_never_completes" (progress stops at 42%),
// "erase_fails" (the drive reports the erase failed), "unreadable" (every block read fails).
struct SimDriveFault {
  int drive = 0;
  std::string kind;
};

bool isKnownDriveFault(std::string_view kind);

struct SimDriveConfig {
  int count = 2;
  std::string host_serial = "SIM-0001";
  std::vector<std::string> serials;  // drive i's serial; past the end "<host_serial>-NVME<i>"
  std::string model = "Simulated NVMe SSD";
  std::string manufacturer = "Simulated";
  std::uint64_t capacity_bytes = 1ULL << 30;  // small on purpose: the sample reads real blocks
  std::uint32_t block_size = 4096;
  int erase_polls = 3;  // polls an erase takes to complete
  std::vector<SimDriveFault> faults;
};

class SimulatedDriveBackend : public DriveBackend {
 public:
  explicit SimulatedDriveBackend(SimDriveConfig config);

  std::string name() const override { return "simulated"; }
  common::Result<std::vector<DriveInfo>> listDrives() override;
  common::Result<void> readBlock(const DriveInfo& drive, std::uint64_t lba,
                                 std::span<std::uint8_t> out) override;
  common::Result<void> writeBlock(const DriveInfo& drive, std::uint64_t lba,
                                  std::span<const std::uint8_t> data) override;
  common::Result<void> startErase(const DriveInfo& drive, EraseMethod method) override;
  common::Result<EraseProgress> pollErase(const DriveInfo& drive) override;

  const SimDriveConfig& config() const { return config_; }
  int erasesCompleted(int drive) const;  // erases that really changed the contents

 private:
  enum class Contents { kOriginal, kZeros, kCryptoNoise };
  struct DriveState {
    Contents contents = Contents::kOriginal;
    std::uint64_t key_epoch = 0;                                 // bumped by each crypto erase
    std::map<std::uint64_t, std::vector<std::uint8_t>> written;  // blocks written since
    std::optional<EraseMethod> erasing;
    int polls = 0;
    int erases = 0;
  };

  bool hasFault(int drive, std::string_view kind) const;
  common::Result<int> indexOf(const DriveInfo& drive, std::uint64_t lba) const;
  void complete(int index, DriveState& state);
  DriveInfo infoFor(int index) const;

  SimDriveConfig config_;
  std::vector<DriveState> state_;
};

}  // namespace agent

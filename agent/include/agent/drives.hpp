// In-band drive erase: the drive backend seam, the pure erase planner and verification positions,
// and sanitizeDrive, which writes canaries, erases, waits and verifies into a DriveReport.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "agent/wipe.hpp"
#include "common/result.hpp"

namespace agent {

// Every erase method, in the planner's order of preference. The wire names are toString's.
enum class EraseMethod {
  kNvmeSanitizeCrypto,
  kNvmeSanitizeBlock,
  kNvmeFormatSes2,
  kNvmeFormatSes1,
  kAtaEnhancedSecureErase,
  kAtaSecureErase,
  kOverwrite,
  kNone,
};

std::string_view toString(EraseMethod method);

// What a drive says it can do (NVMe Identify Controller SANICAP / OACS / FNA, ATA IDENTIFY word
// 128), and for `overwrite` whether the backend can write every block itself.
struct DriveCapabilities {
  bool sanitize_crypto = false;      // SANICAP.CES
  bool sanitize_block = false;       // SANICAP.BES
  bool format_nvm = false;           // OACS.Format: Format NVM with SES=1 (User Data Erase)
  bool format_crypto_erase = false;  // FNA.CRYES: Format NVM with SES=2 (Cryptographic Erase)
  bool ata_security = false;         // ATA Security feature set: SECURITY ERASE UNIT (normal)
  bool ata_enhanced_erase = false;   // ... and its enhanced mode
  bool overwrite = false;            // the backend writes zeros to every block
};

struct DriveInfo {
  std::string id;  // the backend's handle ("/dev/nvme0n1", "sim:1", a file path)
  std::string serial;
  std::string model;
  std::string manufacturer;
  std::string media_type = "ssd";  // "ssd", "hdd"
  std::string interface;           // "nvme", "sata", "sas", "file"
  std::uint64_t capacity_bytes = 0;
  std::uint32_t block_size = 4096;
  DriveCapabilities capabilities;
};

struct EraseProgress {
  bool done = false;
  double percent = 0;  // 0..100, as the drive reports it (SPROG for sanitize)
};

// What the agent needs from drives. Implementations: simulated (faults) and a file / loop device.
class DriveBackend {
 public:
  virtual ~DriveBackend() = default;
  virtual std::string name() const = 0;  // "simulated", "file"
  virtual common::Result<std::vector<DriveInfo>> listDrives() = 0;
  // `out` / `data` hold exactly one block (drive.block_size bytes).
  virtual common::Result<void> readBlock(const DriveInfo& drive, std::uint64_t lba,
                                         std::span<std::uint8_t> out) = 0;
  virtual common::Result<void> writeBlock(const DriveInfo& drive, std::uint64_t lba,
                                          std::span<const std::uint8_t> data) = 0;
  // Fails when the drive refuses the command; the erase then runs until pollErase says done.
  virtual common::Result<void> startErase(const DriveInfo& drive, EraseMethod method) = 0;
  // Fails when the erase itself failed (the drive's sanitize status says so).
  virtual common::Result<EraseProgress> pollErase(const DriveInfo& drive) = 0;
};

// One method the drive offers, with what it achieves.
struct EraseChoice {
  EraseMethod method = EraseMethod::kNone;
  std::string nist_level;  // "purge", "clear"
  std::string technique;   // "cryptographic erase", "block erase", ...
};

struct DriveErasePlan {
  EraseMethod method = EraseMethod::kNone;  // usable.front(), or kNone when nothing is usable
  std::string nist_level = "none";
  std::string technique;
  std::vector<DriveFallback> fallbacks;  // every preferred method skipped, and why
  std::vector<EraseChoice> usable;       // every method offered, best first (runtime fallbacks)
};

// Pure: the best method the capabilities allow, in the order of EraseMethod, and why each better
// one was skipped. Never picks a method that erases nothing: no capability gives kNone.
DriveErasePlan planDriveErase(const DriveCapabilities& capabilities);

// Pure: the blocks read before and after the erase. Stratified: the drive is cut into
// ceil(coverage x block_count) equal strata (at least one) and one seeded block is taken from
// each, so the sample spans the drive; coverage 1 gives every block. Sorted and distinct.
// Requires block_count > 0 and coverage in (0, 1].
std::vector<std::uint64_t> samplePositions(std::uint64_t seed, std::uint64_t block_count,
                                           double coverage);

inline constexpr std::size_t kCanaryCount = 8;

// Pure: where canaries go: the first and last block (partition tables live there) and seeded
// blocks between; fewer on a drive with fewer blocks. Sorted and distinct.
std::vector<std::uint64_t> canaryPositions(std::uint64_t seed, std::uint64_t block_count);

// Pure: a canary's content: "PROVCANARY", the LBA and seeded words, distinct per (seed, LBA) and
// never a blank (all-zero or all-0xFF) block.
std::vector<std::uint8_t> canaryBlock(std::uint64_t seed, std::uint64_t lba,
                                      std::uint32_t block_size);

// Pure: the per-drive seed, so two drives under one plan get different positions.
std::uint64_t driveSeed(std::uint64_t plan_seed, std::string_view serial);

// Time for polling an erase: the real one sleeps, the virtual one only advances (tests, sim).
class EraseClock {
 public:
  virtual ~EraseClock() = default;
  virtual std::chrono::steady_clock::time_point now() = 0;
  virtual void wait(std::chrono::milliseconds delay) = 0;
};

class RealEraseClock : public EraseClock {
 public:
  std::chrono::steady_clock::time_point now() override;
  void wait(std::chrono::milliseconds delay) override;
};

class VirtualEraseClock : public EraseClock {
 public:
  std::chrono::steady_clock::time_point now() override { return now_; }
  void wait(std::chrono::milliseconds delay) override { now_ += delay; }

 private:
  std::chrono::steady_clock::time_point now_{};
};

struct DriveEraseOptions {
  std::chrono::milliseconds poll_interval{1000};
  std::chrono::milliseconds timeout{std::chrono::hours(12)};  // per drive, from the erase start
  std::string tool = "provisioner-agent";
  std::string tool_version;
};

// Plans, writes canaries, hashes the sample, erases (trying the next usable method when the drive
// refuses one), polls until done or `timeout`, then verifies. result "passed" only when the erase
// completed, no canary remains and no sampled block survived.
DriveReport sanitizeDrive(DriveBackend& backend, const DriveInfo& drive, const WipePlan& plan,
                          const DriveErasePlan& erase_plan, EraseClock& clock,
                          const DriveEraseOptions& options);

struct DrivesWipe {
  std::vector<DriveReport> drives;
  std::vector<std::string> skipped;  // serials left to the service (plan.skip_drive_serials)
  std::string error;                 // the drives could not even be listed
};

// sanitizeDrive for every drive the backend lists, except plan.skip_drive_serials.
DrivesWipe wipeDrives(DriveBackend& backend, const WipePlan& plan, EraseClock& clock,
                      const DriveEraseOptions& options);

}  // namespace agent

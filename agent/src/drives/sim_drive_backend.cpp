// The simulated drives. A block reads as what was written to it since the last erase, else as the
// drive's contents: the "original" data (seeded by serial and LBA, one block in four blank, as on
// a partly used drive), zeros after a block erase or format, noise after a crypto erase.
#include <algorithm>
#include <cstring>

#include "agent/drives_sim.hpp"

namespace agent {

namespace {

constexpr int kStuckPercent = 42;  // where "erase_never_completes" stops

std::uint64_t mix(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

void fillNoise(std::uint64_t state, std::span<std::uint8_t> out) {
  for (std::size_t at = 0; at < out.size(); at += sizeof state) {
    state = mix(state);
    std::memcpy(out.data() + at, &state, std::min(sizeof state, out.size() - at));
  }
}

bool isCrypto(EraseMethod method) {
  return method == EraseMethod::kNvmeSanitizeCrypto || method == EraseMethod::kNvmeFormatSes2;
}

bool isSanitize(EraseMethod method) {
  return method == EraseMethod::kNvmeSanitizeCrypto || method == EraseMethod::kNvmeSanitizeBlock;
}

}  // namespace

bool isKnownDriveFault(std::string_view kind) {
  for (std::string_view known :
       {"sanitize_unsupported", "refuses_sanitize", "no_erase_support", "keeps_data",
        "erase_never_completes", "erase_fails", "unreadable"}) {
    if (kind == known) return true;
  }
  return false;
}

SimulatedDriveBackend::SimulatedDriveBackend(SimDriveConfig config)
    : config_(std::move(config)), state_(static_cast<std::size_t>(std::max(config_.count, 0))) {}

bool SimulatedDriveBackend::hasFault(int drive, std::string_view kind) const {
  return std::any_of(config_.faults.begin(), config_.faults.end(),
                     [&](const SimDriveFault& f) { return f.drive == drive && f.kind == kind; });
}

DriveInfo SimulatedDriveBackend::infoFor(int index) const {
  DriveInfo info;
  auto at = static_cast<std::size_t>(index);
  info.id = "sim:" + std::to_string(index);
  info.serial = at < config_.serials.size() ? config_.serials[at]
                                            : config_.host_serial + "-NVME" + std::to_string(index);
  info.model = config_.model;
  info.manufacturer = config_.manufacturer;
  info.interface = "nvme";
  info.capacity_bytes = config_.capacity_bytes;
  info.block_size = config_.block_size;
  bool sanitize = !hasFault(index, "sanitize_unsupported") && !hasFault(index, "no_erase_support");
  bool format = !hasFault(index, "no_erase_support");
  info.capabilities.sanitize_crypto = sanitize;
  info.capabilities.sanitize_block = sanitize;
  info.capabilities.format_nvm = format;
  info.capabilities.format_crypto_erase = format;
  return info;
}

common::Result<std::vector<DriveInfo>> SimulatedDriveBackend::listDrives() {
  std::vector<DriveInfo> drives;
  for (int i = 0; i < static_cast<int>(state_.size()); ++i) drives.push_back(infoFor(i));
  return drives;
}

common::Result<int> SimulatedDriveBackend::indexOf(const DriveInfo& drive,
                                                   std::uint64_t lba) const {
  for (int i = 0; i < static_cast<int>(state_.size()); ++i) {
    if (drive.id != "sim:" + std::to_string(i)) continue;
    if (lba >= config_.capacity_bytes / config_.block_size) {
      return common::invalidArgument(
          "lba_out_of_range", "LBA " + std::to_string(lba) + " is past the end of " + drive.id);
    }
    return i;
  }
  return common::notFound("drive_not_found", "no simulated drive " + drive.id);
}

common::Result<void> SimulatedDriveBackend::readBlock(const DriveInfo& drive, std::uint64_t lba,
                                                      std::span<std::uint8_t> out) {
  PROV_ASSIGN(int index, indexOf(drive, lba));
  if (hasFault(index, "unreadable")) {
    return common::unavailable("read_failed", "Unrecovered Read Error (SCT 2h SC 81h)");
  }
  const DriveState& state = state_[static_cast<std::size_t>(index)];
  if (auto written = state.written.find(lba); written != state.written.end()) {
    std::copy_n(written->second.begin(), std::min(out.size(), written->second.size()), out.begin());
    return common::success();
  }
  std::uint64_t block_seed = mix(driveSeed(state.key_epoch, drive.serial) ^ mix(lba));
  bool blank_original = mix(block_seed) % 4 == 0;
  if (state.contents == Contents::kZeros ||
      (state.contents == Contents::kOriginal && blank_original)) {
    std::fill(out.begin(), out.end(), 0);
  } else {
    fillNoise(block_seed, out);  // original data, or what the new key decrypts it to
  }
  return common::success();
}

common::Result<void> SimulatedDriveBackend::writeBlock(const DriveInfo& drive, std::uint64_t lba,
                                                       std::span<const std::uint8_t> data) {
  PROV_ASSIGN(int index, indexOf(drive, lba));
  state_[static_cast<std::size_t>(index)].written[lba].assign(data.begin(), data.end());
  return common::success();
}

common::Result<void> SimulatedDriveBackend::startErase(const DriveInfo& drive, EraseMethod method) {
  PROV_ASSIGN(int index, indexOf(drive, 0));
  DriveCapabilities caps = infoFor(index).capabilities;
  bool offered = (method == EraseMethod::kNvmeSanitizeCrypto && caps.sanitize_crypto) ||
                 (method == EraseMethod::kNvmeSanitizeBlock && caps.sanitize_block) ||
                 (method == EraseMethod::kNvmeFormatSes2 && caps.format_crypto_erase) ||
                 (method == EraseMethod::kNvmeFormatSes1 && caps.format_nvm);
  if (!offered || (isSanitize(method) && hasFault(index, "refuses_sanitize"))) {
    return common::invalidArgument(
        "invalid_field",
        std::string(toString(method)) + ": Invalid Field in Command (SCT 0h SC 2h)");
  }
  DriveState& state = state_[static_cast<std::size_t>(index)];
  state.erasing = method;
  state.polls = 0;
  return common::success();
}

void SimulatedDriveBackend::complete(int index, DriveState& state) {
  EraseMethod method = *state.erasing;
  state.erasing.reset();
  if (hasFault(index, "keeps_data")) return;  // success reported, nothing changed
  state.written.clear();
  if (isCrypto(method)) {
    state.contents = Contents::kCryptoNoise;
    ++state.key_epoch;
  } else {
    state.contents = Contents::kZeros;
  }
  ++state.erases;
}

common::Result<EraseProgress> SimulatedDriveBackend::pollErase(const DriveInfo& drive) {
  PROV_ASSIGN(int index, indexOf(drive, 0));
  DriveState& state = state_[static_cast<std::size_t>(index)];
  if (!state.erasing) return EraseProgress{true, 100};
  ++state.polls;
  if (hasFault(index, "erase_never_completes")) return EraseProgress{false, kStuckPercent};
  if (hasFault(index, "erase_fails")) {
    state.erasing.reset();
    return common::internalError("sanitize failed: the drive reports SSTAT 3h");
  }
  if (state.polls < config_.erase_polls) {
    return EraseProgress{false, 100.0 * state.polls / config_.erase_polls};
  }
  complete(index, state);
  return EraseProgress{true, 100};
}

int SimulatedDriveBackend::erasesCompleted(int drive) const {
  if (drive < 0 || drive >= static_cast<int>(state_.size())) return 0;
  return state_[static_cast<std::size_t>(drive)].erases;
}

}  // namespace agent

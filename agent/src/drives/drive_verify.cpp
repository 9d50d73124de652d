// Canaries and the fingerprinted sample. Why "changed" and not "zero": after a crypto erase the
// blocks read as whatever the new key decrypts (or zeros where the drive deallocates), so the only
// check that holds for every method is that data that was there is no longer there. Blank blocks
// (never written) cannot show that, which is why canaries, with known non-blank content, exist.
#include <algorithm>

#include "drives/drive_verify.hpp"

namespace agent::drives {

namespace {

std::string atLba(const std::string& what, std::uint64_t lba, const common::Error& error) {
  return what + " LBA " + std::to_string(lba) + " failed: " + error.message;
}

}  // namespace

bool isZero(const std::vector<std::uint8_t>& block) {
  return std::all_of(block.begin(), block.end(), [](std::uint8_t b) { return b == 0; });
}

bool isBlank(const std::vector<std::uint8_t>& block) {
  return isZero(block) ||
         std::all_of(block.begin(), block.end(), [](std::uint8_t b) { return b == 0xFF; });
}

std::uint64_t fingerprint(const std::vector<std::uint8_t>& block) {
  std::uint64_t hash = 0xCBF29CE484222325ULL;  // FNV-1a: collisions at 2^-64 are not a concern
  for (std::uint8_t b : block) hash = (hash ^ b) * 0x100000001B3ULL;
  return hash;
}

common::Result<void> Verifier::writeCanaries() {
  for (std::uint64_t lba : canaries) {
    auto block = canaryBlock(seed, lba, drive.block_size);
    auto written = backend.writeBlock(drive, lba, block);
    if (!written)
      return common::fail(common::internalError(atLba("writing canary", lba, written.error())));
  }
  return common::success();
}

common::Result<void> Verifier::fingerprintSample(const std::vector<std::uint64_t>& positions) {
  std::vector<std::uint8_t> block(drive.block_size);
  sample.clear();
  sample.reserve(positions.size());
  for (std::uint64_t lba : positions) {
    auto read = backend.readBlock(drive, lba, block);
    if (!read)
      return common::fail(common::internalError(atLba("reading sample", lba, read.error())));
    bool blank = isBlank(block);
    sample.push_back({lba, blank, blank ? 0 : fingerprint(block)});
  }
  return common::success();
}

common::Result<void> Verifier::check(EraseMethod method, DriveVerification& out) {
  std::vector<std::uint8_t> block(drive.block_size);
  out.canaries_remaining = 0;
  for (std::uint64_t lba : canaries) {
    auto read = backend.readBlock(drive, lba, block);
    if (!read)
      return common::fail(common::internalError(atLba("reading canary", lba, read.error())));
    if (block == canaryBlock(seed, lba, drive.block_size)) ++out.canaries_remaining;
  }
  out.unchanged_blocks = 0;
  bool zeros_promised = method == EraseMethod::kOverwrite;
  for (const SampleState& state : sample) {
    auto read = backend.readBlock(drive, state.lba, block);
    if (!read)
      return common::fail(common::internalError(atLba("reading sample", state.lba, read.error())));
    bool same = !state.blank && fingerprint(block) == state.fingerprint;
    if (same || (zeros_promised && !isZero(block))) ++out.unchanged_blocks;
  }
  return common::success();
}

}  // namespace agent::drives

// Verification around an erase: canaries written before, the sample fingerprinted before and
// compared after. Internal to agent/src/drives.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "agent/drives.hpp"

namespace agent::drives {

// A sampled block before the erase: a 64-bit fingerprint, or blank (all 0x00 or all 0xFF), which
// no erase can visibly change and so proves nothing either way.
struct SampleState {
  std::uint64_t lba = 0;
  bool blank = false;
  std::uint64_t fingerprint = 0;
};

struct Verifier {
  DriveBackend& backend;
  const DriveInfo& drive;
  std::uint64_t seed = 0;  // driveSeed
  std::vector<std::uint64_t> canaries;
  std::vector<SampleState> sample;

  // Each fails naming the LBA when a read or write fails.
  common::Result<void> writeCanaries();
  common::Result<void> fingerprintSample(const std::vector<std::uint64_t>& positions);
  // Fills canaries_remaining and unchanged_blocks. A sampled block is unchanged when it held data
  // and reads back identical; after an overwrite, which promises zeros, also when not all zero.
  common::Result<void> check(EraseMethod method, DriveVerification& out);
};

bool isBlank(const std::vector<std::uint8_t>& block);
bool isZero(const std::vector<std::uint8_t>& block);
std::uint64_t fingerprint(const std::vector<std::uint8_t>& block);

}  // namespace agent::drives

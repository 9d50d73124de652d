// Where verification looks, derived from the plan's seed: sample strata, canary blocks and their
// content. Pure and deterministic, so the service can re-derive what the agent checked.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "agent/drives.hpp"

namespace agent {

namespace {

// SplitMix64, as in the simulated GPU backend: a well-mixed stream per (seed, index).
std::uint64_t mix(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

// One seeded block in [first, end).
std::uint64_t pick(std::uint64_t seed, std::uint64_t index, std::uint64_t first,
                   std::uint64_t end) {
  return first + mix(seed ^ mix(index)) % (end - first);
}

// Stratum i of k over n blocks: [i*n/k, (i+1)*n/k), without overflow for any drive size.
std::uint64_t stratumStart(std::uint64_t i, std::uint64_t k, std::uint64_t n) {
  return static_cast<std::uint64_t>((static_cast<unsigned __int128>(i) * n) / k);
}

}  // namespace

std::uint64_t driveSeed(std::uint64_t plan_seed, std::string_view serial) {
  std::uint64_t hash = 0xCBF29CE484222325ULL;  // FNV-1a over the serial
  for (char c : serial) hash = (hash ^ static_cast<unsigned char>(c)) * 0x100000001B3ULL;
  return mix(plan_seed ^ hash);
}

std::vector<std::uint64_t> samplePositions(std::uint64_t seed, std::uint64_t block_count,
                                           double coverage) {
  if (block_count == 0 || !(coverage > 0)) return {};
  coverage = std::min(coverage, 1.0);
  double wanted = std::ceil(coverage * static_cast<double>(block_count));
  std::uint64_t k = std::clamp<std::uint64_t>(static_cast<std::uint64_t>(wanted), 1, block_count);
  std::vector<std::uint64_t> positions;
  positions.reserve(k);
  for (std::uint64_t i = 0; i < k; ++i) {
    std::uint64_t first = stratumStart(i, k, block_count);
    std::uint64_t end = stratumStart(i + 1, k, block_count);
    positions.push_back(k == block_count ? first : pick(seed, i, first, end));
  }
  return positions;  // strata are ordered and disjoint: sorted and distinct already
}

std::vector<std::uint64_t> canaryPositions(std::uint64_t seed, std::uint64_t block_count) {
  if (block_count == 0) return {};
  std::vector<std::uint64_t> positions{0, block_count - 1};
  std::uint64_t inner = kCanaryCount - 2;
  for (std::uint64_t i = 0; i < inner && block_count > 2; ++i) {
    std::uint64_t first = 1 + stratumStart(i, inner, block_count - 2);
    std::uint64_t end = 1 + stratumStart(i + 1, inner, block_count - 2);
    if (end > first) positions.push_back(pick(seed ^ 0xC0FFEEULL, i, first, end));
  }
  std::sort(positions.begin(), positions.end());
  positions.erase(std::unique(positions.begin(), positions.end()), positions.end());
  return positions;
}

std::vector<std::uint8_t> canaryBlock(std::uint64_t seed, std::uint64_t lba,
                                      std::uint32_t block_size) {
  std::vector<std::uint8_t> block(block_size);
  std::uint64_t state = mix(seed ^ mix(lba + 1));
  for (std::size_t at = 0; at < block.size(); at += sizeof state) {
    state = mix(state);
    std::memcpy(block.data() + at, &state, std::min(sizeof state, block.size() - at));
  }
  constexpr char kMagic[] = "PROVCANARY";
  std::memcpy(block.data(), kMagic, std::min<std::size_t>(sizeof kMagic - 1, block.size()));
  if (block.size() >= 18) std::memcpy(block.data() + 10, &lba, sizeof lba);
  return block;
}

}  // namespace agent

// What a wipe pass writes to each 32-bit word of GPU memory: shared by the CUDA kernels (which
// write and verify it) and the host (unit tests), so both compute exactly the same values. No
// storage: the verify kernel regenerates the expected word from (pass, seed, position).
#pragma once

#include <cstdint>

#ifdef __CUDACC__
#define PROV_HOST_DEVICE __host__ __device__
#else
#define PROV_HOST_DEVICE
#endif

namespace agent::cuda {

enum class WipeFill : std::uint32_t { kPattern, kRandom, kZero };

struct WipeWords {
  WipeFill fill = WipeFill::kZero;
  std::uint32_t pattern = 0;  // kPattern's word
  std::uint64_t seed = 0;     // kRandom's stream
};

// The splitmix64 output for state `x` (Steele, Lea, Flood 2014): stateless and well mixed, so
// consecutive positions give unrelated values and a stuck bit anywhere shows up.
PROV_HOST_DEVICE inline std::uint64_t splitMix64(std::uint64_t x) {
  std::uint64_t z = x + 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// 64-bit word j of the random stream; 32-bit words 2j and 2j+1 are its low and high halves (one
// mix per two words keeps the random pass memory-bound rather than integer-multiply-bound).
PROV_HOST_DEVICE inline std::uint64_t randomWord64(std::uint64_t seed, std::uint64_t j) {
  return splitMix64(seed ^ j);
}

// The 32-bit word at global word index `i` (counted from the first byte of the first chunk).
PROV_HOST_DEVICE inline std::uint32_t expectedWord(const WipeWords& words, std::uint64_t i) {
  switch (words.fill) {
    case WipeFill::kPattern:
      return words.pattern;
    case WipeFill::kRandom: {
      const std::uint64_t r = randomWord64(words.seed, i >> 1);
      return static_cast<std::uint32_t>((i & 1) != 0 ? r >> 32 : r);
    }
    case WipeFill::kZero:
      break;
  }
  return 0;
}

// Four consecutive words starting at `first` (a multiple of 4): what one 16-byte store writes.
struct Word4 {
  std::uint32_t w[4];
};

PROV_HOST_DEVICE inline Word4 expectedWord4(const WipeWords& words, std::uint64_t first) {
  if (words.fill == WipeFill::kRandom) {
    const std::uint64_t a = randomWord64(words.seed, first >> 1);
    const std::uint64_t b = randomWord64(words.seed, (first >> 1) + 1);
    return Word4{{static_cast<std::uint32_t>(a), static_cast<std::uint32_t>(a >> 32),
                  static_cast<std::uint32_t>(b), static_cast<std::uint32_t>(b >> 32)}};
  }
  const std::uint32_t v = words.fill == WipeFill::kPattern ? words.pattern : 0;
  return Word4{{v, v, v, v}};
}

}  // namespace agent::cuda

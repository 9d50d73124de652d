// The wipe kernels: write a pass's words over a chunk, and count on the device the words that
// differ from what the pass wrote. Only a 64-bit count ever leaves the GPU.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

#include "cuda/wipe_words.hpp"

namespace agent::cuda {

// Grid-stride launches: any chunk size with one configuration per GPU.
struct WipeLaunch {
  unsigned int blocks = 1024;
  unsigned int threads = 256;  // a multiple of 32 (the block reduction works per warp)
};

// A launch that keeps every SM full (8 resident blocks of 256 threads on each).
WipeLaunch wipeLaunchFor(int multiprocessors);

// Writes words [first_word, first_word + bytes / 4) of the pass into `chunk` (`bytes` a multiple
// of 16, `chunk` 16-byte aligned as cudaMalloc returns it). Returns the launch error, if any.
cudaError_t writeWipeWords(void* chunk, std::size_t bytes, std::uint64_t first_word,
                           const WipeWords& words, const WipeLaunch& launch, cudaStream_t stream);

// Adds to `*device_mismatches` (device memory) the number of 32-bit words in `chunk` that differ
// from the pass's words; one atomicAdd per block.
cudaError_t countWipeMismatches(const void* chunk, std::size_t bytes, std::uint64_t first_word,
                                const WipeWords& words, unsigned long long* device_mismatches,
                                const WipeLaunch& launch, cudaStream_t stream);

}  // namespace agent::cuda

#include "cuda/wipe_kernels.hpp"

namespace agent::cuda {
namespace {

constexpr unsigned int kWarp = 32;
constexpr unsigned int kMaxWarps = 32;  // 1024 threads per block at most

__device__ std::size_t firstIndex() {
  return static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}

__device__ std::size_t gridStride() {
  return static_cast<std::size_t>(gridDim.x) * blockDim.x;
}

// 16-byte stores: the widest a thread issues, so the write pass runs at memory speed.
__global__ void writeKernel(uint4* data, std::size_t vectors, std::uint64_t first_word,
                            WipeWords words) {
  for (std::size_t v = firstIndex(); v < vectors; v += gridStride()) {
    const Word4 w = expectedWord4(words, first_word + 4 * v);
    data[v] = make_uint4(w.w[0], w.w[1], w.w[2], w.w[3]);
  }
}

__device__ unsigned int countDifferent(const uint4& got, const Word4& want) {
  return (got.x != want.w[0]) + (got.y != want.w[1]) + (got.z != want.w[2]) + (got.w != want.w[3]);
}

// The block's total: warp shuffles, then the warps' sums through shared memory.
__device__ unsigned long long blockSum(unsigned long long value) {
  __shared__ unsigned long long warp_sums[kMaxWarps];
  for (unsigned int offset = kWarp / 2; offset > 0; offset /= 2) {
    value += __shfl_down_sync(0xffffffffU, value, offset);
  }
  const unsigned int lane = threadIdx.x % kWarp;
  const unsigned int warp = threadIdx.x / kWarp;
  if (lane == 0) warp_sums[warp] = value;
  __syncthreads();
  unsigned long long total = 0;
  if (threadIdx.x == 0) {
    for (unsigned int i = 0; i < blockDim.x / kWarp; ++i) total += warp_sums[i];
  }
  return total;  // meaningful in thread 0 only
}

__global__ void verifyKernel(const uint4* data, std::size_t vectors, std::uint64_t first_word,
                             WipeWords words, unsigned long long* mismatches) {
  unsigned long long mine = 0;
  for (std::size_t v = firstIndex(); v < vectors; v += gridStride()) {
    mine += countDifferent(data[v], expectedWord4(words, first_word + 4 * v));
  }
  const unsigned long long total = blockSum(mine);
  if (threadIdx.x == 0 && total != 0) atomicAdd(mismatches, total);
}

}  // namespace

WipeLaunch wipeLaunchFor(int multiprocessors) {
  constexpr unsigned int kBlocksPerSm = 8;  // 8 x 256 threads: a full SM on sm_80 and sm_90
  WipeLaunch launch;
  if (multiprocessors > 0)
    launch.blocks = static_cast<unsigned int>(multiprocessors) * kBlocksPerSm;
  return launch;
}

cudaError_t writeWipeWords(void* chunk, std::size_t bytes, std::uint64_t first_word,
                           const WipeWords& words, const WipeLaunch& launch, cudaStream_t stream) {
  writeKernel<<<launch.blocks, launch.threads, 0, stream>>>(static_cast<uint4*>(chunk), bytes / 16,
                                                            first_word, words);
  return cudaGetLastError();
}

cudaError_t countWipeMismatches(const void* chunk, std::size_t bytes, std::uint64_t first_word,
                                const WipeWords& words, unsigned long long* device_mismatches,
                                const WipeLaunch& launch, cudaStream_t stream) {
  verifyKernel<<<launch.blocks, launch.threads, 0, stream>>>(
      static_cast<const uint4*>(chunk), bytes / 16, first_word, words, device_mismatches);
  return cudaGetLastError();
}

}  // namespace agent::cuda

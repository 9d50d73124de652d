#include "cuda/fill_kernel.hpp"

namespace agent::cuda {
namespace {

// A 32-bit integer hash (xorshift-multiply): cheap, and well spread for consecutive inputs.
__device__ std::uint32_t mix(std::uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352dU;
  x ^= x >> 15;
  x *= 0x846ca68bU;
  x ^= x >> 16;
  return x;
}

// bfloat16 is the top half of a float32; truncating is fine for random data.
__global__ void fillBf16Kernel(std::uint16_t* data, std::size_t count, std::uint32_t seed) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += stride) {
    const std::uint32_t bits =
        mix(static_cast<std::uint32_t>(i) ^ mix(seed + static_cast<std::uint32_t>(i >> 32)));
    const float value = static_cast<float>(bits) * (2.0f / 4294967296.0f) - 1.0f;
    data[i] = static_cast<std::uint16_t>(__float_as_uint(value) >> 16);
  }
}

}  // namespace

cudaError_t fillRandomBf16(void* data, std::size_t count, std::uint32_t seed, cudaStream_t stream) {
  constexpr unsigned int kThreads = 256;
  constexpr unsigned int kBlocks = 1024;  // grid-stride: any count
  fillBf16Kernel<<<kBlocks, kThreads, 0, stream>>>(static_cast<std::uint16_t*>(data), count, seed);
  return cudaGetLastError();
}

}  // namespace agent::cuda

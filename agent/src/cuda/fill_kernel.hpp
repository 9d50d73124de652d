// Fills GPU buffers with pseudo-random values, so the burn-in computes on realistic data (a GEMM
// of zeros draws less power and clocks higher than real work).
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

namespace agent::cuda {

// `count` bfloat16 values uniform in [-1, 1), a function of (seed, position). Returns the launch
// error, if any (cudaGetLastError after the launch).
cudaError_t fillRandomBf16(void* data, std::size_t count, std::uint32_t seed, cudaStream_t stream);

}  // namespace agent::cuda

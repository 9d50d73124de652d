// The burn-in measurements on real GPUs (CUDA runtime + cuBLAS). Each selects its device(s),
// runs for about `seconds` of GPU time and returns the sustained figure; every call is checked
// and named in the error with the GPU index, and all memory is released on every path.
#pragma once

#include "common/result.hpp"

namespace agent::cuda {

// Dense 8192^3 GEMM, BF16 inputs and output, FP32 accumulation (cublasGemmEx,
// CUBLAS_COMPUTE_32F): TFLOP/s = 2 n^3 * gemms / time.
common::Result<double> measureGemmTflops(int gpu, double seconds);
// Device-to-device copy of a large buffer (2 GiB, or a quarter of free memory if less):
// GB/s counting read + write bytes, i.e. 2 x size per copy.
common::Result<double> measureHbmGbps(int gpu, double seconds);
// 256 MiB between pinned host memory and the GPU, one direction: GB/s of bytes moved.
common::Result<double> measurePcieGbps(int gpu, bool host_to_device, double seconds);
// 256 MiB from GPU `from` to GPU `to` over peer access (NVLink/PCIe P2P), one direction.
// Unavailable "peer_access_unavailable" when the pair cannot access each other directly.
common::Result<double> measurePeerGbps(int from, int to, double seconds);

}  // namespace agent::cuda

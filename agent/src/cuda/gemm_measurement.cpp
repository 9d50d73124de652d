#include <cstdint>

#include "cuda/cuda_support.hpp"
#include "cuda/figures.hpp"
#include "cuda/fill_kernel.hpp"
#include "cuda/measurements.hpp"
#include "cuda/timed_loop.hpp"

namespace agent::cuda {
namespace {

constexpr int kN = 8192;
constexpr std::size_t kElements = static_cast<std::size_t>(kN) * kN;
constexpr std::size_t kBf16Bytes = 2;

struct GemmBuffers {
  DeviceBuffer a, b, c;
};

common::Result<GemmBuffers> makeInputs(cudaStream_t stream, int gpu) {
  GemmBuffers buffers;
  PROV_ASSIGN(buffers.a, allocateDevice(kElements * kBf16Bytes, gpu));
  PROV_ASSIGN(buffers.b, allocateDevice(kElements * kBf16Bytes, gpu));
  PROV_ASSIGN(buffers.c, allocateDevice(kElements * kBf16Bytes, gpu));
  PROV_TRY(cudaCheck(fillRandomBf16(buffers.a.get(), kElements, 1, stream), "fillRandomBf16", gpu));
  PROV_TRY(cudaCheck(fillRandomBf16(buffers.b.get(), kElements, 2, stream), "fillRandomBf16", gpu));
  return buffers;
}

}  // namespace

common::Result<double> measureGemmTflops(int gpu, double seconds) {
  PROV_TRY(cudaCheck(cudaSetDevice(gpu), "cudaSetDevice", gpu));
  PROV_ASSIGN(Stream stream, createStream(gpu));
  PROV_ASSIGN(GemmBuffers buffers, makeInputs(stream.get(), gpu));
  PROV_ASSIGN(CublasHandle blas, CublasHandle::create(stream.get(), gpu));
  const float alpha = 1.0f;
  const float beta = 0.0f;
  auto gemm = [&]() -> common::Result<void> {
    return cublasCheck(
        cublasGemmEx(blas.get(), CUBLAS_OP_N, CUBLAS_OP_N, kN, kN, kN, &alpha, buffers.a.get(),
                     CUDA_R_16BF, kN, buffers.b.get(), CUDA_R_16BF, kN, &beta, buffers.c.get(),
                     CUDA_R_16BF, kN, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
        "cublasGemmEx", gpu);
  };
  PROV_ASSIGN(TimedRun run, runTimed(stream.get(), gpu, seconds, gemm));
  return gemmTflops(kN, run.operations, run.seconds);
}

}  // namespace agent::cuda

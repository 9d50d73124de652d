// Error values and owning wrappers for the CUDA runtime and cuBLAS: every call is checked and
// named with the GPU it ran on, and every allocation is released on every path.
#pragma once

#include <cstddef>
#include <string_view>
#include <utility>

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include "common/result.hpp"

namespace agent::cuda {

// Success, or Unavailable "cuda_error": "<call> failed on GPU <i>: <cudaGetErrorString>".
common::Result<void> cudaCheck(cudaError_t status, std::string_view call, int gpu_index);
// Success, or Unavailable "cublas_error": "<call> failed on GPU <i>: <cublasGetStatusString>".
common::Result<void> cublasCheck(cublasStatus_t status, std::string_view call, int gpu_index);

// Owns one CUDA object through its release function; movable, not copyable.
template <class T, cudaError_t (*Release)(T)>
class CudaHandle {
 public:
  CudaHandle() = default;
  explicit CudaHandle(T value) : value_(value) {}
  ~CudaHandle() { reset(); }
  CudaHandle(CudaHandle&& other) noexcept : value_(std::exchange(other.value_, T{})) {}
  CudaHandle& operator=(CudaHandle&& other) noexcept {
    if (this != &other) {
      reset();
      value_ = std::exchange(other.value_, T{});
    }
    return *this;
  }
  CudaHandle(const CudaHandle&) = delete;
  CudaHandle& operator=(const CudaHandle&) = delete;

  T get() const { return value_; }

 private:
  void reset() {
    if (value_ != T{}) Release(value_);  // teardown errors have nowhere useful to go
    value_ = T{};
  }
  T value_{};
};

using DeviceBuffer = CudaHandle<void*, cudaFree>;
using PinnedBuffer = CudaHandle<void*, cudaFreeHost>;
using Stream = CudaHandle<cudaStream_t, cudaStreamDestroy>;
using Event = CudaHandle<cudaEvent_t, cudaEventDestroy>;

// Each creates on the current device; `gpu_index` only names it in errors.
common::Result<DeviceBuffer> allocateDevice(std::size_t bytes, int gpu_index);
common::Result<PinnedBuffer> allocatePinned(std::size_t bytes, int gpu_index);
common::Result<Stream> createStream(int gpu_index);
common::Result<Event> createEvent(int gpu_index);

// A cuBLAS handle bound to a stream.
class CublasHandle {
 public:
  static common::Result<CublasHandle> create(cudaStream_t stream, int gpu_index);
  ~CublasHandle();
  CublasHandle(CublasHandle&& other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}
  CublasHandle& operator=(CublasHandle&&) = delete;
  CublasHandle(const CublasHandle&) = delete;
  CublasHandle& operator=(const CublasHandle&) = delete;

  cublasHandle_t get() const { return handle_; }

 private:
  explicit CublasHandle(cublasHandle_t handle) : handle_(handle) {}
  cublasHandle_t handle_ = nullptr;
};

}  // namespace agent::cuda

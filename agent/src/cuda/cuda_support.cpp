#include "cuda/cuda_support.hpp"

#include <string>

namespace agent::cuda {
namespace {

std::string failedOn(std::string_view call, int gpu_index, const char* text) {
  return std::string(call) + " failed on GPU " + std::to_string(gpu_index) + ": " +
         (text != nullptr ? text : "unknown error");
}

}  // namespace

common::Result<void> cudaCheck(cudaError_t status, std::string_view call, int gpu_index) {
  if (status == cudaSuccess) return common::success();
  cudaGetLastError();  // clear a non-sticky error so the next call reports its own
  return common::fail(
      common::unavailable("cuda_error", failedOn(call, gpu_index, cudaGetErrorString(status))));
}

common::Result<void> cublasCheck(cublasStatus_t status, std::string_view call, int gpu_index) {
  if (status == CUBLAS_STATUS_SUCCESS) return common::success();
  return common::fail(common::unavailable(
      "cublas_error", failedOn(call, gpu_index, cublasGetStatusString(status))));
}

common::Result<DeviceBuffer> allocateDevice(std::size_t bytes, int gpu_index) {
  void* memory = nullptr;
  PROV_TRY(cudaCheck(cudaMalloc(&memory, bytes), "cudaMalloc", gpu_index));
  return DeviceBuffer(memory);
}

common::Result<PinnedBuffer> allocatePinned(std::size_t bytes, int gpu_index) {
  void* memory = nullptr;
  PROV_TRY(
      cudaCheck(cudaHostAlloc(&memory, bytes, cudaHostAllocDefault), "cudaHostAlloc", gpu_index));
  return PinnedBuffer(memory);
}

common::Result<Stream> createStream(int gpu_index) {
  cudaStream_t stream = nullptr;
  PROV_TRY(cudaCheck(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking),
                     "cudaStreamCreateWithFlags", gpu_index));
  return Stream(stream);
}

common::Result<Event> createEvent(int gpu_index) {
  cudaEvent_t event = nullptr;
  PROV_TRY(cudaCheck(cudaEventCreate(&event), "cudaEventCreate", gpu_index));
  return Event(event);
}

common::Result<CublasHandle> CublasHandle::create(cudaStream_t stream, int gpu_index) {
  cublasHandle_t handle = nullptr;
  PROV_TRY(cublasCheck(cublasCreate(&handle), "cublasCreate", gpu_index));
  CublasHandle owned(handle);
  PROV_TRY(cublasCheck(cublasSetStream(handle, stream), "cublasSetStream", gpu_index));
  return owned;
}

CublasHandle::~CublasHandle() {
  if (handle_ != nullptr) cublasDestroy(handle_);
}

}  // namespace agent::cuda

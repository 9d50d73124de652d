#include <algorithm>
#include <cstdint>
#include <string>

#include "cuda/cuda_support.hpp"
#include "cuda/figures.hpp"
#include "cuda/measurements.hpp"
#include "cuda/timed_loop.hpp"

namespace agent::cuda {
namespace {

constexpr std::size_t kMiB = 1024 * 1024;
constexpr std::size_t kHbmBufferMax = 2048 * kMiB;
constexpr std::size_t kTransferBytes = 256 * kMiB;

// Two equal buffers for the device copy: 2 GiB each, or a quarter of free memory, 2 MiB-aligned.
common::Result<std::size_t> hbmBufferBytes(int gpu) {
  std::size_t free_bytes = 0;
  std::size_t total_bytes = 0;
  PROV_TRY(cudaCheck(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo", gpu));
  const std::size_t size = std::min(kHbmBufferMax, free_bytes / 4) / (2 * kMiB) * (2 * kMiB);
  if (size == 0) {
    return common::fail(common::unavailable(
        "cuda_error", "GPU " + std::to_string(gpu) + " has too little free memory to test"));
  }
  return size;
}

// Peer access both ways (the copy engine may drive either side); "already enabled" is fine.
common::Result<void> enablePeerAccess(int gpu, int peer) {
  PROV_TRY(cudaCheck(cudaSetDevice(gpu), "cudaSetDevice", gpu));
  cudaError_t status = cudaDeviceEnablePeerAccess(peer, 0);
  if (status == cudaErrorPeerAccessAlreadyEnabled) {
    cudaGetLastError();
    return common::success();
  }
  return cudaCheck(status, "cudaDeviceEnablePeerAccess", gpu);
}

common::Result<void> requirePeerAccess(int from, int to) {
  int from_to = 0;
  int to_from = 0;
  PROV_TRY(cudaCheck(cudaDeviceCanAccessPeer(&from_to, from, to), "cudaDeviceCanAccessPeer", from));
  PROV_TRY(cudaCheck(cudaDeviceCanAccessPeer(&to_from, to, from), "cudaDeviceCanAccessPeer", to));
  if (from_to == 0 || to_from == 0) {
    return common::fail(common::unavailable(
        "peer_access_unavailable", "GPU " + std::to_string(from) + " and GPU " +
                                       std::to_string(to) + " cannot access each other directly"));
  }
  PROV_TRY(enablePeerAccess(to, from));
  return enablePeerAccess(from, to);
}

}  // namespace

common::Result<double> measureHbmGbps(int gpu, double seconds) {
  PROV_TRY(cudaCheck(cudaSetDevice(gpu), "cudaSetDevice", gpu));
  PROV_ASSIGN(std::size_t bytes, hbmBufferBytes(gpu));
  PROV_ASSIGN(Stream stream, createStream(gpu));
  PROV_ASSIGN(DeviceBuffer source, allocateDevice(bytes, gpu));
  PROV_ASSIGN(DeviceBuffer target, allocateDevice(bytes, gpu));
  PROV_TRY(
      cudaCheck(cudaMemsetAsync(source.get(), 0x5a, bytes, stream.get()), "cudaMemsetAsync", gpu));
  auto copy = [&]() {
    return cudaCheck(
        cudaMemcpyAsync(target.get(), source.get(), bytes, cudaMemcpyDeviceToDevice, stream.get()),
        "cudaMemcpyAsync", gpu);
  };
  PROV_ASSIGN(TimedRun run, runTimed(stream.get(), gpu, seconds, copy));
  return gigabytesPerSecond(2 * bytes, run.operations, run.seconds);  // read + write
}

common::Result<double> measurePcieGbps(int gpu, bool host_to_device, double seconds) {
  PROV_TRY(cudaCheck(cudaSetDevice(gpu), "cudaSetDevice", gpu));
  PROV_ASSIGN(Stream stream, createStream(gpu));
  PROV_ASSIGN(PinnedBuffer host, allocatePinned(kTransferBytes, gpu));
  PROV_ASSIGN(DeviceBuffer device, allocateDevice(kTransferBytes, gpu));
  void* target = host_to_device ? device.get() : host.get();
  const void* source = host_to_device ? host.get() : device.get();
  const cudaMemcpyKind kind = host_to_device ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost;
  auto copy = [&]() {
    return cudaCheck(cudaMemcpyAsync(target, source, kTransferBytes, kind, stream.get()),
                     "cudaMemcpyAsync", gpu);
  };
  PROV_ASSIGN(TimedRun run, runTimed(stream.get(), gpu, seconds, copy));
  return gigabytesPerSecond(kTransferBytes, run.operations, run.seconds);
}

common::Result<double> measurePeerGbps(int from, int to, double seconds) {
  PROV_TRY(requirePeerAccess(from, to));
  PROV_TRY(cudaCheck(cudaSetDevice(to), "cudaSetDevice", to));
  PROV_ASSIGN(DeviceBuffer target, allocateDevice(kTransferBytes, to));
  PROV_TRY(cudaCheck(cudaSetDevice(from), "cudaSetDevice", from));
  PROV_ASSIGN(DeviceBuffer source, allocateDevice(kTransferBytes, from));
  PROV_ASSIGN(Stream stream, createStream(from));
  auto copy = [&]() {
    return cudaCheck(
        cudaMemcpyPeerAsync(target.get(), to, source.get(), from, kTransferBytes, stream.get()),
        "cudaMemcpyPeerAsync", from);
  };
  PROV_ASSIGN(TimedRun run, runTimed(stream.get(), from, seconds, copy));
  return gigabytesPerSecond(kTransferBytes, run.operations, run.seconds);
}

}  // namespace agent::cuda

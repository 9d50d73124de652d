#include "agent/cuda_backend.hpp"

#include <array>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "cuda/cuda_support.hpp"
#include "cuda/gpu_identity.hpp"
#include "cuda/gpu_reset.hpp"
#include "cuda/measurements.hpp"
#include "cuda/nvml_devices.hpp"
#include "cuda/wipe_memory.hpp"

namespace agent {
namespace {

constexpr std::uint64_t kMiB = 1024ULL * 1024ULL;

struct CudaDevice {
  std::string uuid;  // NVML form
  std::uint64_t memory_mib = 0;
  int nvml_index = -1;
};

common::Error cudaUnavailable(const std::string& what) {
  return common::unavailable("cuda_unavailable", "no usable CUDA device: " + what);
}

common::Result<std::vector<CudaDevice>> listCudaDevices() {
  int count = 0;
  if (cudaError_t status = cudaGetDeviceCount(&count); status != cudaSuccess) {
    cudaGetLastError();
    return common::fail(
        cudaUnavailable(std::string("cudaGetDeviceCount: ") + cudaGetErrorString(status)));
  }
  if (count == 0) return common::fail(cudaUnavailable("cudaGetDeviceCount found no device"));
  std::vector<CudaDevice> devices;
  for (int i = 0; i < count; ++i) {
    cudaDeviceProp properties{};
    PROV_TRY(
        cuda::cudaCheck(cudaGetDeviceProperties(&properties, i), "cudaGetDeviceProperties", i));
    std::array<unsigned char, 16> uuid{};
    std::memcpy(uuid.data(), properties.uuid.bytes, uuid.size());
    devices.push_back(CudaDevice{cuda::formatGpuUuid(uuid), properties.totalGlobalMem / kMiB, -1});
  }
  return devices;
}

class CudaBackend final : public GpuBackend {
 public:
  CudaBackend(std::unique_ptr<cuda::NvmlDevices> nvml, std::vector<CudaDevice> devices)
      : nvml_(std::move(nvml)), devices_(std::move(devices)) {}

  std::string name() const override { return "cuda"; }
  std::string driverVersion() const override { return nvml_->driverVersion(); }

  common::Result<std::vector<GpuFacts>> discover() override {
    std::vector<GpuFacts> gpus;
    for (int i = 0; i < count(); ++i) {
      PROV_ASSIGN(GpuFacts facts, nvml_->facts(device(i).nvml_index, i));
      if (facts.memory_mib == 0) facts.memory_mib = device(i).memory_mib;
      gpus.push_back(std::move(facts));
    }
    return gpus;
  }

  common::Result<double> computeTflops(int index, double seconds) override {
    PROV_TRY(checkIndex(index, "index"));
    return cuda::measureGemmTflops(index, seconds);
  }
  common::Result<double> hbmBandwidthGbps(int index, double seconds) override {
    PROV_TRY(checkIndex(index, "index"));
    return cuda::measureHbmGbps(index, seconds);
  }
  common::Result<double> pcieBandwidthGbps(int index, bool host_to_device,
                                           double seconds) override {
    PROV_TRY(checkIndex(index, "index"));
    return cuda::measurePcieGbps(index, host_to_device, seconds);
  }
  common::Result<double> peerBandwidthGbps(int from, int to, double seconds) override {
    PROV_TRY(checkIndex(from, "from"));
    PROV_TRY(checkIndex(to, "to"));
    if (from == to) {
      return common::fail(
          common::invalidArgument("invalid_gpu_index", "a peer copy needs two GPUs", "to"));
    }
    return cuda::measurePeerGbps(from, to, seconds);
  }
  common::Result<HealthSample> sampleHealth(int index) override {
    PROV_TRY(checkIndex(index, "index"));
    return nvml_->health(device(index).nvml_index, index);
  }
  common::Result<GpuWipeReport> wipeMemory(int index, const WipePlan& plan) override {
    PROV_TRY(checkIndex(index, "index"));
    return cuda::wipeGpuMemory(index, plan);
  }
  common::Result<void> resetGpu(int index) override {
    PROV_TRY(checkIndex(index, "index"));
    return cuda::resetGpuWithNvidiaSmi(device(index).uuid, cuda::gpuResetCommandFromEnvironment());
  }

 private:
  int count() const { return static_cast<int>(devices_.size()); }
  const CudaDevice& device(int index) const { return devices_[static_cast<std::size_t>(index)]; }

  common::Result<void> checkIndex(int index, const char* field) const {
    if (index >= 0 && index < count()) return common::success();
    return common::fail(common::invalidArgument(
        "invalid_gpu_index",
        "GPU " + std::to_string(index) + " does not exist (" + std::to_string(count()) + " GPUs)",
        field));
  }

  std::unique_ptr<cuda::NvmlDevices> nvml_;
  std::vector<CudaDevice> devices_;
};

}  // namespace

common::Result<std::unique_ptr<GpuBackend>> makeCudaBackend() {
  PROV_ASSIGN(std::vector<CudaDevice> devices, listCudaDevices());
  PROV_ASSIGN(auto library, cuda::NvmlLibrary::load());
  PROV_ASSIGN(auto nvml, cuda::NvmlDevices::open(std::move(library)));
  std::vector<std::string> cuda_uuids;
  for (const CudaDevice& device : devices) cuda_uuids.push_back(device.uuid);
  PROV_ASSIGN(std::vector<int> nvml_index, cuda::matchByUuid(cuda_uuids, nvml->uuids()));
  for (std::size_t i = 0; i < devices.size(); ++i) devices[i].nvml_index = nvml_index[i];
  return std::unique_ptr<GpuBackend>(new CudaBackend(std::move(nvml), std::move(devices)));
}

}  // namespace agent

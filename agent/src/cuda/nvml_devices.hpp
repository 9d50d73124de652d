// NVML's view of the GPUs: identity and PCIe facts, and the health counters the burn-in watches
// (ECC, XID events, temperature, throttling), by NVML index.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "agent/gpu_backend.hpp"
#include "common/result.hpp"
#include "cuda/nvml_loader.hpp"

namespace agent::cuda {

class NvmlDevices {
 public:
  // Enumerates the devices and registers each for XID events (one event set per GPU, so a
  // sample of one GPU never consumes another's events). Devices that do not support events
  // simply report no XIDs.
  static common::Result<std::unique_ptr<NvmlDevices>> open(std::shared_ptr<NvmlLibrary> nvml);
  ~NvmlDevices();
  NvmlDevices(const NvmlDevices&) = delete;
  NvmlDevices& operator=(const NvmlDevices&) = delete;

  int count() const { return static_cast<int>(devices_.size()); }
  const std::vector<std::string>& uuids() const { return uuids_; }
  const std::string& driverVersion() const { return driver_version_; }

  // `label` is the GPU index the caller reports (errors name it, GpuFacts::index takes it).
  // Memory, PCIe and ECC mode a GPU does not support read as 0 / false; a missing board serial
  // (non-datacenter parts) falls back to the UUID so the GPU still has an identity.
  common::Result<GpuFacts> facts(int nvml_index, int label) const;
  // ECC counters are the volatile totals (since the driver loaded); XIDs are those queued since
  // the previous sample of this GPU.
  common::Result<HealthSample> health(int nvml_index, int label);

 private:
  struct Device {
    nvml::Device handle = nullptr;
    nvml::EventSet events = nullptr;  // null: XID events not supported
    std::mutex events_mutex;
  };

  explicit NvmlDevices(std::shared_ptr<NvmlLibrary> nvml) : nvml_(std::move(nvml)) {}
  common::Result<void> addDevice(unsigned int index);
  common::Result<std::vector<int>> drainXids(Device& device, int label);
  common::Result<std::string> readString(nvml::DeviceGetStringFn fn, const char* call,
                                         nvml::Device handle, unsigned int size, int label) const;

  std::shared_ptr<NvmlLibrary> nvml_;
  std::vector<std::unique_ptr<Device>> devices_;
  std::vector<std::string> uuids_;
  std::string driver_version_;
};

}  // namespace agent::cuda

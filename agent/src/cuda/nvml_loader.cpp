#include "cuda/nvml_loader.hpp"

#include <dlfcn.h>

#include <utility>

namespace agent::cuda {
namespace {

common::Error unavailable(const std::string& path, const std::string& cause) {
  return common::unavailable("nvml_unavailable",
                             "NVML could not be loaded from " + path + ": " + cause);
}

// Resolves one symbol into `out`; records the first missing name.
template <class Fn>
void resolve(void* handle, const char* symbol, Fn& out, std::string& missing) {
  void* address = dlsym(handle, symbol);
  if (address == nullptr) {
    if (missing.empty()) missing = symbol;
    return;
  }
  out = reinterpret_cast<Fn>(address);
}

// Newer drivers name it "clocks event reasons"; older ones only "throttle reasons".
void resolveThrottleReasons(void* handle, nvml::Api& api, std::string& missing) {
  std::string ignored;
  resolve(handle, "nvmlDeviceGetCurrentClocksEventReasons", api.throttle_reasons, ignored);
  if (api.throttle_reasons == nullptr) {
    resolve(handle, "nvmlDeviceGetCurrentClocksThrottleReasons", api.throttle_reasons, missing);
  }
}

// Optional: a library without them still loads, and the monitor reads less.
void resolveMonitorCalls(void* handle, nvml::Api& api) {
  std::string ignored;
  resolve(handle, "nvmlDeviceGetPowerUsage", api.power_usage, ignored);
  resolve(handle, "nvmlDeviceGetClockInfo", api.clock_info, ignored);
  resolve(handle, "nvmlDeviceGetRemappedRows", api.remapped_rows, ignored);
  resolve(handle, "nvmlDeviceGetRetiredPages", api.retired_pages, ignored);
  resolve(handle, "nvmlDeviceGetNvLinkErrorCounter", api.nvlink_errors, ignored);
  resolve(handle, "nvmlDeviceGetPcieReplayCounter", api.pcie_replay, ignored);
  resolve(handle, "nvmlDeviceGetUtilizationRates", api.utilization, ignored);
  resolve(handle, "nvmlDeviceGetFieldValues", api.field_values, ignored);
}

// The first required symbol absent from the library, or "" when all resolved.
std::string resolveAll(void* handle, nvml::Api& api) {
  std::string missing;
  resolve(handle, "nvmlInit_v2", api.init, missing);
  resolve(handle, "nvmlShutdown", api.shutdown, missing);
  resolve(handle, "nvmlErrorString", api.error_string, missing);
  resolve(handle, "nvmlDeviceGetCount_v2", api.device_count, missing);
  resolve(handle, "nvmlDeviceGetHandleByIndex_v2", api.device_handle, missing);
  resolve(handle, "nvmlDeviceGetSerial", api.serial, missing);
  resolve(handle, "nvmlDeviceGetUUID", api.uuid, missing);
  resolve(handle, "nvmlDeviceGetName", api.name, missing);
  resolve(handle, "nvmlDeviceGetMemoryInfo", api.memory_info, missing);
  resolve(handle, "nvmlDeviceGetCurrPcieLinkWidth", api.curr_pcie_width, missing);
  resolve(handle, "nvmlDeviceGetMaxPcieLinkWidth", api.max_pcie_width, missing);
  resolve(handle, "nvmlDeviceGetCurrPcieLinkGeneration", api.curr_pcie_gen, missing);
  resolve(handle, "nvmlDeviceGetMaxPcieLinkGeneration", api.max_pcie_gen, missing);
  resolve(handle, "nvmlSystemGetDriverVersion", api.driver_version, missing);
  resolve(handle, "nvmlDeviceGetEccMode", api.ecc_mode, missing);
  resolve(handle, "nvmlDeviceGetTotalEccErrors", api.total_ecc_errors, missing);
  resolve(handle, "nvmlDeviceGetTemperature", api.temperature, missing);
  resolveThrottleReasons(handle, api, missing);
  resolve(handle, "nvmlEventSetCreate", api.event_set_create, missing);
  resolve(handle, "nvmlDeviceRegisterEvents", api.register_events, missing);
  resolve(handle, "nvmlEventSetWait_v2", api.event_set_wait, missing);
  resolve(handle, "nvmlEventSetFree", api.event_set_free, missing);
  resolveMonitorCalls(handle, api);
  return missing;
}

}  // namespace

common::Result<std::shared_ptr<NvmlLibrary>> NvmlLibrary::load(const std::string& path) {
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* cause = dlerror();
    return common::fail(unavailable(path, cause != nullptr ? cause : "dlopen failed"));
  }
  nvml::Api api;
  if (std::string missing = resolveAll(handle, api); !missing.empty()) {
    dlclose(handle);
    return common::fail(unavailable(
        path, "the library has no symbol " + missing + " (not NVML, or a driver too old)"));
  }
  if (nvml::Return rc = api.init(); rc != nvml::kSuccess) {
    const char* text = api.error_string(rc);
    std::string cause = "nvmlInit_v2 failed: " + std::string(text != nullptr ? text : "unknown");
    dlclose(handle);
    return common::fail(unavailable(path, cause));
  }
  return std::shared_ptr<NvmlLibrary>(new NvmlLibrary(handle, api));
}

NvmlLibrary::~NvmlLibrary() {
  api_.shutdown();
  dlclose(handle_);
}

std::string NvmlLibrary::errorString(nvml::Return rc) const {
  const char* text = api_.error_string(rc);
  return text != nullptr ? std::string(text) : "NVML error " + std::to_string(rc);
}

common::Result<void> NvmlLibrary::check(nvml::Return rc, std::string_view call,
                                        int gpu_index) const {
  if (rc == nvml::kSuccess) return common::success();
  std::string where = gpu_index >= 0 ? " on GPU " + std::to_string(gpu_index) : "";
  return common::fail(common::unavailable(
      "nvml_error", std::string(call) + " failed" + where + ": " + errorString(rc)));
}

}  // namespace agent::cuda

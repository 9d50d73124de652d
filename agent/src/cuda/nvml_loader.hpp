// Loads NVML (libnvidia-ml.so.1) at run time with dlopen: the agent binary starts, and reports a
// clear error, on a machine without the NVIDIA driver; nothing links against NVML.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "common/result.hpp"
#include "cuda/nvml_api.hpp"

namespace agent::cuda {

inline constexpr std::string_view kNvmlLibrary = "libnvidia-ml.so.1";

// One opened library with its entry points resolved and nvmlInit_v2 done. Destruction calls
// nvmlShutdown and closes the library, so share it (shared_ptr) with whatever holds NVML handles.
// NVML itself is thread-safe; this class adds no state after load().
class NvmlLibrary {
 public:
  // Unavailable "nvml_unavailable" naming the library and the cause: not found (dlerror), a
  // required symbol missing (named), or nvmlInit_v2 failing (NVML's error string).
  static common::Result<std::shared_ptr<NvmlLibrary>> load(
      const std::string& path = std::string(kNvmlLibrary));

  ~NvmlLibrary();
  NvmlLibrary(const NvmlLibrary&) = delete;
  NvmlLibrary& operator=(const NvmlLibrary&) = delete;

  const nvml::Api& api() const { return api_; }
  // NVML's text for a return code ("Not Supported"), or "NVML error <n>".
  std::string errorString(nvml::Return rc) const;
  // Success for NVML_SUCCESS, else Unavailable "nvml_error": "<call> failed on GPU <i>: <text>"
  // (gpu_index < 0: no GPU named).
  common::Result<void> check(nvml::Return rc, std::string_view call, int gpu_index) const;

 private:
  NvmlLibrary(void* handle, const nvml::Api& api) : handle_(handle), api_(api) {}

  void* handle_;
  nvml::Api api_;
};

}  // namespace agent::cuda

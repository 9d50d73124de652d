// The defaults of GpuBackend::wipeMemory and resetGpu: a backend that cannot says so.
#include "agent/gpu_backend.hpp"

namespace agent {

common::Result<GpuWipeReport> GpuBackend::wipeMemory(int index, const WipePlan& /*plan*/) {
  return common::unavailable("wipe_not_supported",
                             "the " + name() + " backend cannot wipe GPU " + std::to_string(index));
}

common::Result<void> GpuBackend::resetGpu(int index) {
  return common::fail(
      common::unavailable("reset_not_supported",
                          "the " + name() + " backend cannot reset GPU " + std::to_string(index)));
}

}  // namespace agent

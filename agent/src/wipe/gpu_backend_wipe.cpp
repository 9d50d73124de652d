// The default GpuBackend::wipeMemory: a backend that cannot wipe says so.
#include "agent/gpu_backend.hpp"

namespace agent {

common::Result<GpuWipeReport> GpuBackend::wipeMemory(int index, const WipePlan& /*plan*/) {
  return common::unavailable("wipe_not_supported",
                             "the " + name() + " backend cannot wipe GPU " + std::to_string(index));
}

}  // namespace agent

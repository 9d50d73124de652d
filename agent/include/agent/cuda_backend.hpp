// The real GPU backend: CUDA runtime + cuBLAS for the measurements, NVML (dlopen'ed at run time)
// for facts and the health watch. Exists when the agent_cuda target is built (a CUDA toolkit was
// found); provisioner-agent then has PROVISIONER_AGENT_HAS_CUDA defined. No CUDA headers here.
#pragma once

#include <memory>

#include "agent/gpu_backend.hpp"
#include "common/result.hpp"

namespace agent {

// GPU indices are CUDA device ordinals (as CUDA_VISIBLE_DEVICES presents them); NVML devices
// are matched to them by UUID. Errors, all Unavailable:
//   "cuda_unavailable": no CUDA device or no usable driver (names CUDA's error string);
//   "nvml_unavailable": libnvidia-ml.so.1 missing, incomplete or failing nvmlInit;
//   "gpu_map_failed":   a CUDA device NVML does not list.
common::Result<std::unique_ptr<GpuBackend>> makeCudaBackend();

}  // namespace agent

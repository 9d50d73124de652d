// The real backend's GPU reset (the resident monitor's reset at idle, docs/health.md "Actions"):
// NVML's public API has no reset, so it is `nvidia-smi --gpu-reset -i <GPU UUID>`, as an operator
// would type it. nvidia-smi refuses while any process holds the GPU, and on NVSwitch systems
// before Hopper only resets all GPUs together: its words come back as the error. Never run on a
// real GPU by this project yet (docs/health.md says so).
#pragma once

#include <chrono>
#include <string>

#include "common/result.hpp"

namespace agent::cuda {

struct GpuResetCommand {
  std::string nvidia_smi = "/usr/bin/nvidia-smi";  // env PROVISIONER_NVIDIA_SMI overrides
  std::chrono::seconds timeout{120};
};

// The command from the environment (PROVISIONER_NVIDIA_SMI) or the default.
GpuResetCommand gpuResetCommandFromEnvironment();

// Ok when nvidia-smi exits 0. Unavailable "reset_failed" with nvidia-smi's output otherwise;
// "program_not_found" without nvidia-smi; Timeout "program_timeout" when it hangs.
common::Result<void> resetGpuWithNvidiaSmi(const std::string& gpu_uuid,
                                           const GpuResetCommand& command);

}  // namespace agent::cuda

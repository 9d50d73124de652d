// Pure helpers between NVML and CUDA: decoding NVML's throttle-reason bits and matching CUDA
// devices to NVML devices by UUID (the two number GPUs differently, e.g. under
// CUDA_VISIBLE_DEVICES or CUDA_DEVICE_ORDER=FASTEST_FIRST).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "common/result.hpp"

namespace agent::cuda {

// The reasons that matter for a burn-in, in bit order: "sw_power_cap", "hw_slowdown",
// "sw_thermal", "hw_thermal", "hw_power_brake". Benign bits (idle, application clocks, sync
// boost, display) are left out.
std::vector<std::string> throttleReasonNames(std::uint64_t mask);

// cudaDeviceProp::uuid (16 bytes) in NVML's form "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx".
std::string formatGpuUuid(const std::array<unsigned char, 16>& bytes);

// For each CUDA device (by its UUID), the index of the NVML device with the same UUID (compared
// case-insensitively). Unavailable "gpu_map_failed" naming the CUDA index when one has no match.
common::Result<std::vector<int>> matchByUuid(const std::vector<std::string>& cuda_uuids,
                                             const std::vector<std::string>& nvml_uuids);

}  // namespace agent::cuda

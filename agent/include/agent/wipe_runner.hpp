// Runs a wipe task's GPU part: every GPU is wiped, one GPU's failure does not stop the others.
#pragma once

#include <string>
#include <vector>

#include "agent/gpu_backend.hpp"
#include "agent/wipe.hpp"

namespace agent {

// The report's gpus (one per entry of `gpus`, in order) with times; drives are left empty.
WipeReport runWipe(const WipePlan& plan, GpuBackend& backend, const std::vector<GpuFacts>& gpus,
                   const std::string& tool_version);

}  // namespace agent

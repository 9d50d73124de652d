// The real GPU memory wipe (CUDA runtime): allocate all the free memory in chunks, run the pattern,
// random and zero passes over it, each written then verified on the device, and report the facts.
#pragma once

#include "agent/wipe.hpp"
#include "common/result.hpp"

namespace agent::cuda {

// GPU `gpu` (a CUDA ordinal). An Error means nothing was attempted (cudaSetDevice or
// cudaMemGetInfo failed); a wipe stopped midway returns a report with `error` naming the pass and
// the passes that completed. Every allocation is freed on every path. Identity and timestamps
// are the caller's (runWipe fills them).
common::Result<GpuWipeReport> wipeGpuMemory(int gpu, const WipePlan& plan);

}  // namespace agent::cuda

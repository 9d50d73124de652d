// Runs a burn-in plan on a GPU backend: measurements per test and GPU, the health watch before,
// between and after the tests, and progress as it goes.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "agent/gpu_backend.hpp"
#include "agent/protocol.hpp"

namespace agent {

// Called once before each (test, GPU) step. Returning false stops the run (e.g. the service
// revoked the token); the result then carries what was measured so far.
using ProgressCallback = std::function<bool(const Progress&)>;

// The unit the wire uses for `test`: "TFLOP/s" for compute, "GB/s" for the bandwidths.
std::string_view unitFor(std::string_view test);

// Runs `plan` on `gpus` (from backend.discover()). Peer bandwidth goes from each GPU to the next
// one (a ring), so it needs two GPUs. A backend error on one GPU does not stop the others: it is
// named in TaskResult.error ("GPU 3 (serial S) compute: ...").
TaskResult runBurnIn(std::int64_t task_id, const BurnInPlan& plan, GpuBackend& backend,
                     const std::vector<GpuFacts>& gpus, const ProgressCallback& on_progress);

}  // namespace agent

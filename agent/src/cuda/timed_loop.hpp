// Runs one GPU operation back to back for a wall of GPU time, timed with CUDA events.
#pragma once

#include <cstdint>
#include <functional>

#include <cuda_runtime_api.h>

#include "common/result.hpp"

namespace agent::cuda {

struct TimedRun {
  std::uint64_t operations = 0;  // completed within `seconds`
  double seconds = 0;            // GPU time from the first timed operation to the last
};

// Enqueues `enqueue_one` on `stream` (current device) repeatedly for about `seconds`. One
// untimed warm-up operation first; it also sizes the batches (~50 ms each). One batch is always
// queued ahead of the one being waited for, so the GPU never idles between batches.
common::Result<TimedRun> runTimed(cudaStream_t stream, int gpu_index, double seconds,
                                  const std::function<common::Result<void>()>& enqueue_one);

}  // namespace agent::cuda

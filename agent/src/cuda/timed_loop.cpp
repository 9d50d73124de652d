#include "cuda/timed_loop.hpp"

#include <algorithm>
#include <cmath>

#include "cuda/cuda_support.hpp"

namespace agent::cuda {
namespace {

constexpr double kBatchMs = 50;
constexpr std::uint64_t kMaxBatch = 4096;

common::Result<float> elapsedMs(const Event& from, const Event& to, int gpu_index) {
  PROV_TRY(cudaCheck(cudaEventSynchronize(to.get()), "cudaEventSynchronize", gpu_index));
  float ms = 0;
  PROV_TRY(cudaCheck(cudaEventElapsedTime(&ms, from.get(), to.get()), "cudaEventElapsedTime",
                     gpu_index));
  return ms;
}

// Times one warm-up operation and picks how many make a ~50 ms batch.
common::Result<std::uint64_t> warmUpBatchSize(
    cudaStream_t stream, int gpu_index, const std::function<common::Result<void>()>& enqueue_one) {
  PROV_ASSIGN(Event before, createEvent(gpu_index));
  PROV_ASSIGN(Event after, createEvent(gpu_index));
  PROV_TRY(cudaCheck(cudaEventRecord(before.get(), stream), "cudaEventRecord", gpu_index));
  PROV_TRY(enqueue_one());
  PROV_TRY(cudaCheck(cudaEventRecord(after.get(), stream), "cudaEventRecord", gpu_index));
  PROV_ASSIGN(float ms, elapsedMs(before, after, gpu_index));
  const double per_batch = std::ceil(kBatchMs / std::max(static_cast<double>(ms), 1e-3));
  return std::clamp<std::uint64_t>(static_cast<std::uint64_t>(per_batch), 1, kMaxBatch);
}

}  // namespace

common::Result<TimedRun> runTimed(cudaStream_t stream, int gpu_index, double seconds,
                                  const std::function<common::Result<void>()>& enqueue_one) {
  PROV_ASSIGN(std::uint64_t batch, warmUpBatchSize(stream, gpu_index, enqueue_one));
  PROV_ASSIGN(Event start, createEvent(gpu_index));
  Event batch_end[2];
  PROV_ASSIGN(batch_end[0], createEvent(gpu_index));
  PROV_ASSIGN(batch_end[1], createEvent(gpu_index));
  std::uint64_t enqueued[2] = {0, 0};
  std::uint64_t total = 0;
  const double target_ms = seconds * 1000.0;
  PROV_TRY(cudaCheck(cudaEventRecord(start.get(), stream), "cudaEventRecord", gpu_index));
  for (std::uint64_t round = 0;; ++round) {
    for (std::uint64_t i = 0; i < batch; ++i) PROV_TRY(enqueue_one());
    total += batch;
    const std::size_t slot = round % 2;
    PROV_TRY(
        cudaCheck(cudaEventRecord(batch_end[slot].get(), stream), "cudaEventRecord", gpu_index));
    enqueued[slot] = total;
    if (round == 0) continue;
    // Wait for the previous batch while this one runs.
    PROV_ASSIGN(float ms, elapsedMs(start, batch_end[1 - slot], gpu_index));
    if (ms >= target_ms) {
      PROV_ASSIGN(float last_ms, elapsedMs(start, batch_end[slot], gpu_index));
      return TimedRun{enqueued[slot], last_ms / 1000.0};
    }
  }
}

}  // namespace agent::cuda

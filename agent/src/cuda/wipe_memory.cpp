#include "cuda/wipe_memory.hpp"

#include <string>
#include <utility>
#include <vector>

#include "cuda/cuda_support.hpp"
#include "cuda/wipe_kernels.hpp"
#include "cuda/wipe_plan.hpp"

namespace agent::cuda {
namespace {

struct Chunk {
  DeviceBuffer memory;
  std::uint64_t bytes = 0;
  std::uint64_t first_word = 0;  // the chunk's place in the one stream of words across chunks
};

// What every pass uses, created before the chunks so they cannot be starved of memory.
struct PassTools {
  int gpu = 0;
  WipeLaunch launch;
  Stream stream;
  Event start;
  Event end;
  DeviceBuffer counter;  // one unsigned long long: the pass's mismatches
};

common::Result<PassTools> makeTools(int gpu) {
  PassTools tools;
  tools.gpu = gpu;
  int multiprocessors = 0;
  PROV_TRY(cudaCheck(cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, gpu),
                     "cudaDeviceGetAttribute", gpu));
  tools.launch = wipeLaunchFor(multiprocessors);
  PROV_ASSIGN(tools.stream, createStream(gpu));
  PROV_ASSIGN(tools.start, createEvent(gpu));
  PROV_ASSIGN(tools.end, createEvent(gpu));
  PROV_ASSIGN(tools.counter, allocateDevice(sizeof(unsigned long long), gpu));
  return tools;
}

// Allocates the chunks planChunks chooses; out-of-memory halves the size, any other cudaMalloc
// error is returned (the GPU is failing). On error the chunks already taken are freed.
common::Result<std::vector<Chunk>> allocateChunks(int gpu, std::uint64_t free_bytes,
                                                  const ChunkPolicy& policy) {
  std::vector<Chunk> chunks;
  std::uint64_t next_word = 0;
  common::Result<void> failure = common::success();
  auto allocate = [&chunks, &next_word, &failure, gpu](std::uint64_t bytes) {
    void* memory = nullptr;
    const cudaError_t status = cudaMalloc(&memory, bytes);
    if (status == cudaSuccess) {
      chunks.push_back(Chunk{DeviceBuffer(memory), bytes, next_word});
      next_word += bytes / 4;
      return AllocateOutcome::kAllocated;
    }
    failure = cudaCheck(status, "cudaMalloc", gpu);  // also clears a non-sticky error
    return status == cudaErrorMemoryAllocation ? AllocateOutcome::kTooLarge
                                               : AllocateOutcome::kFailed;
  };
  if (planChunks(free_bytes, policy, allocate).failed) return common::fail(failure.error());
  return chunks;
}

std::uint64_t coveredBytes(const std::vector<Chunk>& chunks) {
  std::uint64_t total = 0;
  for (const Chunk& chunk : chunks) total += chunk.bytes;
  return total;
}

// Writes every chunk, waits (so a write fault is named as such), verifies every chunk on the
// device, and reads back only the mismatch count. Timed on the GPU with events. Verifying in
// write order means the L2 holds none of a chunk's writes by the time it is read: reads hit HBM.
common::Result<WipePass> runPass(const PassSpec& pass, const std::vector<Chunk>& chunks,
                                 const PassTools& tools) {
  const int gpu = tools.gpu;
  cudaStream_t stream = tools.stream.get();
  auto* counter = static_cast<unsigned long long*>(tools.counter.get());
  PROV_TRY(cudaCheck(cudaMemsetAsync(counter, 0, sizeof *counter, stream), "cudaMemsetAsync", gpu));
  PROV_TRY(cudaCheck(cudaEventRecord(tools.start.get(), stream), "cudaEventRecord", gpu));
  for (const Chunk& chunk : chunks) {
    PROV_TRY(cudaCheck(writeWipeWords(chunk.memory.get(), chunk.bytes, chunk.first_word, pass.words,
                                      tools.launch, stream),
                       "the write kernel", gpu));
  }
  PROV_TRY(cudaCheck(cudaStreamSynchronize(stream), "writing (cudaStreamSynchronize)", gpu));
  for (const Chunk& chunk : chunks) {
    PROV_TRY(cudaCheck(countWipeMismatches(chunk.memory.get(), chunk.bytes, chunk.first_word,
                                           pass.words, counter, tools.launch, stream),
                       "the verify kernel", gpu));
  }
  PROV_TRY(cudaCheck(cudaEventRecord(tools.end.get(), stream), "cudaEventRecord", gpu));
  unsigned long long mismatches = 0;
  PROV_TRY(cudaCheck(
      cudaMemcpyAsync(&mismatches, counter, sizeof mismatches, cudaMemcpyDeviceToHost, stream),
      "cudaMemcpyAsync", gpu));
  PROV_TRY(cudaCheck(cudaStreamSynchronize(stream), "verifying (cudaStreamSynchronize)", gpu));
  float ms = 0;
  PROV_TRY(cudaCheck(cudaEventElapsedTime(&ms, tools.start.get(), tools.end.get()),
                     "cudaEventElapsedTime", gpu));
  return makePass(pass.name, coveredBytes(chunks), mismatches, ms / 1000.0);
}

// The passes in order; the first failure stops the wipe and is named with its pass.
void runPasses(const WipePlan& plan, const std::vector<Chunk>& chunks, const PassTools& tools,
               GpuWipeReport& report) {
  for (const PassSpec& pass : wipePasses(plan)) {
    auto done = runPass(pass, chunks, tools);
    if (!done) {
      report.error = passFailure(pass.name, done.error().message);
      return;
    }
    addPass(report, std::move(done).value());
  }
}

}  // namespace

common::Result<GpuWipeReport> wipeGpuMemory(int gpu, const WipePlan& plan) {
  PROV_TRY(cudaCheck(cudaSetDevice(gpu), "cudaSetDevice", gpu));
  PROV_ASSIGN(PassTools tools, makeTools(gpu));
  std::size_t free_bytes = 0;
  std::size_t total_bytes = 0;
  PROV_TRY(cudaCheck(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo", gpu));
  GpuWipeReport report;
  report.total_bytes = total_bytes;
  const ChunkPolicy policy;
  auto chunks = allocateChunks(gpu, free_bytes, policy);
  if (!chunks) {
    report.error = chunks.error().message + " while allocating memory to wipe";
    return report;
  }
  report.covered_bytes = coveredBytes(*chunks);
  report.unreachable =
      unreachableMemory(total_bytes, free_bytes, policy.margin_bytes, report.covered_bytes);
  runPasses(plan, *chunks, tools, report);
  if (report.error.empty()) report.reset = resetOutcome(plan);
  return report;  // the chunks are freed here, on every path
}

}  // namespace agent::cuda

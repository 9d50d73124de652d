// The pure half of the CUDA wipe (no CUDA, unit-tested): how free memory is carved into chunks,
// the passes and their words, what stays unreachable, and the report's arithmetic.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "agent/wipe.hpp"
#include "wipe_words.hpp"  // relative: the unit tests include this header without agent/src

namespace agent::cuda {

struct ChunkPolicy {
  std::uint64_t first_bytes = 1ULL << 30;     // try 1 GiB chunks first
  std::uint64_t floor_bytes = 2ULL << 20;     // halve on failure down to 2 MiB (a multiple of 16)
  std::uint64_t margin_bytes = 256ULL << 20;  // left free for the runtime (launches, counters)
};

enum class AllocateOutcome { kAllocated, kTooLarge, kFailed };

struct ChunkPlan {
  std::vector<std::uint64_t> chunks;  // sizes allocated, in order
  bool failed = false;                // the allocator reported a hard error: stop the wipe
};

// Allocates chunks through `allocate` until `free_bytes - margin` is used up or no chunk of the
// floor size fits: each size is tried until it fails, then halved. Sizes are multiples of the
// floor, so every chunk holds whole 16-byte vectors.
inline ChunkPlan planChunks(std::uint64_t free_bytes, const ChunkPolicy& policy,
                            const std::function<AllocateOutcome(std::uint64_t)>& allocate) {
  ChunkPlan plan;
  const std::uint64_t floor = std::max<std::uint64_t>(policy.floor_bytes / 16 * 16, 16);
  auto alignDown = [floor](std::uint64_t bytes) { return bytes / floor * floor; };
  std::uint64_t remaining = free_bytes > policy.margin_bytes ? free_bytes - policy.margin_bytes : 0;
  std::uint64_t size = std::max(alignDown(policy.first_bytes), floor);
  while (true) {
    size = std::min(size, alignDown(remaining));
    if (size < floor) return plan;
    switch (allocate(size)) {
      case AllocateOutcome::kAllocated:
        plan.chunks.push_back(size);
        remaining -= size;
        break;
      case AllocateOutcome::kTooLarge:
        size = alignDown(size / 2);
        break;
      case AllocateOutcome::kFailed:
        plan.failed = true;
        return plan;
    }
  }
}

inline std::uint64_t sumBytes(const std::vector<std::uint64_t>& chunks) {
  std::uint64_t total = 0;
  for (std::uint64_t bytes : chunks) total += bytes;
  return total;
}

// Memory the wipe did not reach, by cause: what the driver held before we started (total - free),
// the margin left for the runtime, and what allocation could not get (fragmentation).
inline std::vector<UnreachableMemory> unreachableMemory(std::uint64_t total, std::uint64_t free,
                                                        std::uint64_t margin,
                                                        std::uint64_t covered) {
  free = std::min(free, total);
  const std::uint64_t kept = std::min(margin, free);
  const std::uint64_t allocatable = free - kept;
  return {{"driver_reserved", total - free},
          {"runtime_margin", kept},
          {"allocation_failed", allocatable > covered ? allocatable - covered : 0}};
}

struct PassSpec {
  std::string name;
  WipeWords words;
};

// The three passes in order: the plan's pattern, the seeded random stream, zeros (what the next
// tenant finds).
inline std::vector<PassSpec> wipePasses(const WipePlan& plan) {
  return {{"pattern", {WipeFill::kPattern, plan.pattern, 0}},
          {"random", {WipeFill::kRandom, 0, plan.seed}},
          {"zero", {WipeFill::kZero, 0, 0}}};
}

// One pass's figures; gbps is bytes written per second of write + verify time (GB = 1e9), as the
// simulated backend and the wire contract count it.
inline WipePass makePass(std::string name, std::uint64_t bytes, std::uint64_t mismatches,
                         double seconds) {
  WipePass pass;
  pass.name = std::move(name);
  pass.bytes_written = bytes;
  pass.bytes_verified = bytes;
  pass.mismatches = mismatches;
  pass.seconds = seconds;
  pass.gbps = seconds > 0 ? static_cast<double>(bytes) / 1e9 / seconds : 0;
  return pass;
}

// Adds a pass to the report's sums and recomputes the overall rate.
inline void addPass(GpuWipeReport& report, WipePass pass) {
  report.bytes_written += pass.bytes_written;
  report.bytes_verified += pass.bytes_verified;
  report.mismatches += pass.mismatches;
  report.seconds += pass.seconds;
  report.gbps =
      report.seconds > 0 ? static_cast<double>(report.bytes_written) / 1e9 / report.seconds : 0;
  report.passes.push_back(std::move(pass));
}

// The report's `reset`: NVML's public API has no GPU reset (nvidia-smi -r is not exposed to
// applications), so a requested reset is honestly "not_supported" rather than pretended.
inline std::string resetOutcome(const WipePlan& plan) {
  return plan.reset_gpus ? "not_supported" : "skipped";
}

// "<what failed> during pass <name>", the report's `error` for a wipe stopped midway.
inline std::string passFailure(const std::string& pass, const std::string& what) {
  return what + " during pass " + pass;
}

}  // namespace agent::cuda

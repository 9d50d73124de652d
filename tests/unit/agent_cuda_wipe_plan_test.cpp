// The pure half of the CUDA wipe: chunk planning, the passes' words, unreachable memory and the
// report's arithmetic. Builds without CUDA (the header is plain C++ with no CUDA include).
#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

// By path: agent/src is on unit_tests' include path only when the CUDA backend is built.
#include "../../agent/src/cuda/wipe_plan.hpp"

using agent::cuda::AllocateOutcome;
using agent::cuda::ChunkPolicy;
using agent::cuda::planChunks;

namespace {

constexpr std::uint64_t kMiB = 1ULL << 20;
constexpr std::uint64_t kGiB = 1ULL << 30;

// An allocator that grants any chunk up to `largest`, `budget` bytes in all.
struct FakeAllocator {
  std::uint64_t largest = UINT64_MAX;
  std::uint64_t budget = UINT64_MAX;
  std::vector<std::uint64_t> tried;
  AllocateOutcome operator()(std::uint64_t bytes) {
    tried.push_back(bytes);
    if (bytes > largest || bytes > budget) return AllocateOutcome::kTooLarge;
    budget -= bytes;
    return AllocateOutcome::kAllocated;
  }
};

}  // namespace

TEST_CASE("CUDA wipe takes 1 GiB chunks then one smaller chunk for the rest", "[cuda][wipe]") {
  ChunkPolicy policy;
  FakeAllocator allocator;
  auto plan = planChunks(3 * kGiB + 512 * kMiB + policy.margin_bytes, policy, std::ref(allocator));
  CHECK_FALSE(plan.failed);
  CHECK(plan.chunks == std::vector<std::uint64_t>{kGiB, kGiB, kGiB, 512 * kMiB});
  CHECK(allocator.tried == plan.chunks);  // it never asks for more than is left
}

TEST_CASE("CUDA wipe halves the chunk size when allocation fails", "[cuda][wipe]") {
  ChunkPolicy policy;
  FakeAllocator allocator;
  allocator.largest = 256 * kMiB;
  auto plan = planChunks(kGiB + policy.margin_bytes, policy, std::ref(allocator));
  CHECK(plan.chunks == std::vector<std::uint64_t>(4, 256 * kMiB));
  CHECK(allocator.tried == std::vector<std::uint64_t>{kGiB, 512 * kMiB, 256 * kMiB, 256 * kMiB,
                                                      256 * kMiB, 256 * kMiB});
}

TEST_CASE("CUDA wipe stops at the floor when free memory is fragmented", "[cuda][wipe]") {
  ChunkPolicy policy;
  // The driver says 2 GiB are free but only 1 GiB + 6 MiB can be had.
  FakeAllocator allocator;
  allocator.budget = kGiB + 6 * kMiB;
  auto plan = planChunks(2 * kGiB + policy.margin_bytes, policy, std::ref(allocator));
  CHECK_FALSE(plan.failed);
  CHECK(agent::cuda::sumBytes(plan.chunks) == kGiB + 6 * kMiB);
  CHECK(allocator.tried.back() == policy.floor_bytes);
}

TEST_CASE("CUDA wipe sizes are whole floors and leave the margin", "[cuda][wipe]") {
  ChunkPolicy policy;
  FakeAllocator allocator;
  auto plan = planChunks(kGiB + 3 * kMiB + 5 + policy.margin_bytes, policy, std::ref(allocator));
  CHECK(plan.chunks == std::vector<std::uint64_t>{kGiB, 2 * kMiB});
  CHECK(planChunks(policy.margin_bytes + kMiB, policy, std::ref(allocator)).chunks.empty());
  CHECK(planChunks(0, policy, std::ref(allocator)).chunks.empty());
}

TEST_CASE("CUDA wipe stops on an allocation error that is not out-of-memory", "[cuda][wipe]") {
  int calls = 0;
  auto failing = [&calls](std::uint64_t) {
    return ++calls < 3 ? AllocateOutcome::kAllocated : AllocateOutcome::kFailed;
  };
  auto plan = planChunks(10 * kGiB, ChunkPolicy{}, failing);
  CHECK(plan.failed);
  CHECK(plan.chunks.size() == 2);
  CHECK(calls == 3);
}

TEST_CASE("CUDA wipe accounts for every byte it did not reach", "[cuda][wipe]") {
  const std::uint64_t total = 80 * kGiB;
  const std::uint64_t free = 79 * kGiB;
  const std::uint64_t margin = 256 * kMiB;
  const std::uint64_t covered = free - margin - 10 * kMiB;
  auto unreachable = agent::cuda::unreachableMemory(total, free, margin, covered);
  REQUIRE(unreachable.size() == 3);
  CHECK(unreachable[0].what == "driver_reserved");
  CHECK(unreachable[0].bytes == kGiB);
  CHECK(unreachable[1].what == "runtime_margin");
  CHECK(unreachable[1].bytes == margin);
  CHECK(unreachable[2].what == "allocation_failed");
  CHECK(unreachable[2].bytes == 10 * kMiB);
  std::uint64_t sum = covered;
  for (const auto& part : unreachable) sum += part.bytes;
  CHECK(sum == total);
  // Less free than the margin: nothing allocatable, nothing negative.
  auto tiny = agent::cuda::unreachableMemory(total, kMiB, margin, 0);
  CHECK(tiny[1].bytes == kMiB);
  CHECK(tiny[2].bytes == 0);
}

TEST_CASE("CUDA wipe runs pattern random zero with the plan's word and seed", "[cuda][wipe]") {
  agent::WipePlan plan;
  plan.seed = 42;
  plan.pattern = 0x5A5A0F0Fu;
  auto passes = agent::cuda::wipePasses(plan);
  REQUIRE(passes.size() == 3);
  CHECK(passes[0].name == "pattern");
  CHECK(agent::cuda::expectedWord(passes[0].words, 12345) == 0x5A5A0F0Fu);
  CHECK(passes[1].name == "random");
  CHECK(passes[1].words.seed == 42);
  CHECK(passes[2].name == "zero");
  CHECK(agent::cuda::expectedWord(passes[2].words, 7) == 0);
}

TEST_CASE("CUDA wipe random words are splitmix64 of seed xor position", "[cuda][wipe]") {
  using agent::cuda::WipeFill;
  CHECK(agent::cuda::splitMix64(0) == 0xe220a8397b1dcdafULL);  // splitmix64's first output from 0
  const agent::cuda::WipeWords random{WipeFill::kRandom, 0, 99};
  const std::uint64_t r = agent::cuda::splitMix64(99 ^ 3);
  CHECK(agent::cuda::expectedWord(random, 6) == static_cast<std::uint32_t>(r));
  CHECK(agent::cuda::expectedWord(random, 7) == static_cast<std::uint32_t>(r >> 32));
  const agent::cuda::WipeWords other{WipeFill::kRandom, 0, 100};
  CHECK(agent::cuda::expectedWord(random, 6) != agent::cuda::expectedWord(other, 6));
  CHECK(agent::cuda::expectedWord(random, 6) != agent::cuda::expectedWord(random, 8));
}

TEST_CASE("CUDA wipe 16-byte stores write the same words as word by word", "[cuda][wipe]") {
  using agent::cuda::WipeFill;
  const std::uint64_t base = (20ULL << 30) + 4;  // beyond 2^32 words' worth of bytes
  for (auto fill : {WipeFill::kPattern, WipeFill::kRandom, WipeFill::kZero}) {
    const agent::cuda::WipeWords words{fill, 0xA5A5A5A5u, 7};
    for (std::uint64_t first = base; first < base + 64; first += 4) {
      auto four = agent::cuda::expectedWord4(words, first);
      for (int k = 0; k < 4; ++k) CHECK(four.w[k] == agent::cuda::expectedWord(words, first + k));
    }
  }
}

TEST_CASE("CUDA wipe passes sum into the report and rate bytes written per second",
          "[cuda][wipe]") {
  agent::GpuWipeReport report;
  agent::cuda::addPass(report, agent::cuda::makePass("pattern", 10'000'000'000ULL, 0, 2.0));
  CHECK(report.passes[0].gbps == Approx(5.0));
  agent::cuda::addPass(report, agent::cuda::makePass("random", 10'000'000'000ULL, 3, 3.0));
  CHECK(report.bytes_written == 20'000'000'000ULL);
  CHECK(report.bytes_verified == 20'000'000'000ULL);
  CHECK(report.mismatches == 3);
  CHECK(report.seconds == Approx(5.0));
  CHECK(report.gbps == Approx(4.0));
  CHECK(agent::cuda::makePass("zero", 1, 0, 0).gbps == 0);
}

TEST_CASE("CUDA wipe reports a requested reset as not supported and names a failed pass",
          "[cuda][wipe]") {
  agent::WipePlan plan;
  CHECK(agent::cuda::resetOutcome(plan) == "not_supported");
  plan.reset_gpus = false;
  CHECK(agent::cuda::resetOutcome(plan) == "skipped");
  CHECK(agent::cuda::passFailure("random", "cudaStreamSynchronize failed on GPU 0: x") ==
        "cudaStreamSynchronize failed on GPU 0: x during pass random");
}

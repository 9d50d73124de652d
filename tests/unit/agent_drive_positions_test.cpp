// Verification positions derived from the seed: determinism, coverage, strata, 100%, canaries.
#include <catch2/catch.hpp>

#include <algorithm>
#include <set>

#include "agent/drives.hpp"

using agent::canaryBlock;
using agent::canaryPositions;
using agent::samplePositions;

namespace {

bool sortedDistinct(const std::vector<std::uint64_t>& v) {
  return std::adjacent_find(v.begin(), v.end(), [](auto a, auto b) { return a >= b; }) == v.end();
}

}  // namespace

TEST_CASE("sample positions are deterministic per seed and differ between seeds", "[drives]") {
  auto a = samplePositions(42, 1'000'000, 0.01);
  CHECK(a == samplePositions(42, 1'000'000, 0.01));
  CHECK(a != samplePositions(43, 1'000'000, 0.01));
}

TEST_CASE("sample positions cover the asked fraction, spread over the drive", "[drives]") {
  std::uint64_t blocks = 262'144;  // a 1 GiB drive of 4 KiB blocks
  auto positions = samplePositions(7, blocks, 0.01);
  CHECK(positions.size() == 2622);  // ceil(0.01 x 262144)
  CHECK(sortedDistinct(positions));
  CHECK(positions.back() < blocks);
  // One per stratum: the first lies in the first hundredth, the last in the last.
  CHECK(positions.front() < blocks / 2622 + 1);
  CHECK(positions.back() >= blocks - blocks / 2622 - 1);
}

TEST_CASE("sample positions at 100% are every block", "[drives]") {
  auto positions = samplePositions(7, 1000, 1.0);
  REQUIRE(positions.size() == 1000);
  for (std::uint64_t i = 0; i < 1000; ++i) CHECK(positions[i] == i);
}

TEST_CASE("sample positions take at least one block and nothing on an empty drive", "[drives]") {
  CHECK(samplePositions(7, 10, 1e-9).size() == 1);
  CHECK(samplePositions(7, 0, 0.5).empty());
  CHECK(samplePositions(7, 10, 0).empty());
  auto half = samplePositions(7, 11, 0.5);
  CHECK(half.size() == 6);
  CHECK(sortedDistinct(half));
}

TEST_CASE("drive seeds differ per serial and stay fixed", "[drives]") {
  CHECK(agent::driveSeed(1, "S1") == agent::driveSeed(1, "S1"));
  CHECK(agent::driveSeed(1, "S1") != agent::driveSeed(1, "S2"));
  CHECK(agent::driveSeed(1, "S1") != agent::driveSeed(2, "S1"));
}

TEST_CASE("canaries sit at both ends and between, sorted and distinct", "[drives]") {
  auto positions = canaryPositions(5, 1'000'000);
  CHECK(positions.size() == agent::kCanaryCount);
  CHECK(positions.front() == 0);
  CHECK(positions.back() == 999'999);
  CHECK(sortedDistinct(positions));
  CHECK(positions == canaryPositions(5, 1'000'000));
  CHECK(positions != canaryPositions(6, 1'000'000));
  CHECK(canaryPositions(5, 1) == std::vector<std::uint64_t>{0});
  CHECK(canaryPositions(5, 3) == std::vector<std::uint64_t>{0, 1, 2});
}

TEST_CASE("canary blocks are marked, distinct per LBA and never blank", "[drives]") {
  auto a = canaryBlock(5, 10, 4096);
  auto b = canaryBlock(5, 11, 4096);
  REQUIRE(a.size() == 4096);
  CHECK(std::string(a.begin(), a.begin() + 10) == "PROVCANARY");
  CHECK(a != b);
  CHECK(a == canaryBlock(5, 10, 4096));
  CHECK(std::any_of(a.begin(), a.end(), [](std::uint8_t x) { return x != 0 && x != 0xFF; }));
}

// Matching CUDA devices to NVML devices by UUID, and the arithmetic behind the burn-in figures.
#ifdef PROVISIONER_TEST_HAS_AGENT_CUDA

#include <catch2/catch.hpp>

#include "cuda/figures.hpp"
#include "cuda/gpu_identity.hpp"

using namespace agent::cuda;

TEST_CASE("A CUDA UUID formats the way NVML prints it", "[nvml]") {
  std::array<unsigned char, 16> bytes{0x2f, 0x3a, 0x9b, 0x01, 0xc4, 0x5d, 0x6e, 0x7f,
                                      0x80, 0x91, 0xa2, 0xb3, 0xc4, 0xd5, 0xe6, 0xf7};
  CHECK(formatGpuUuid(bytes) == "GPU-2f3a9b01-c45d-6e7f-8091-a2b3c4d5e6f7");
}

TEST_CASE("CUDA devices map to NVML devices by UUID whatever the order", "[nvml]") {
  std::vector<std::string> cuda{"GPU-bbbb", "GPU-aaaa", "GPU-cccc"};
  std::vector<std::string> nvml{"GPU-AAAA", "GPU-cccc", "GPU-bbbb"};
  auto mapped = matchByUuid(cuda, nvml);
  REQUIRE(mapped.ok());
  CHECK(*mapped == std::vector<int>{2, 0, 1});
}

TEST_CASE("A CUDA device unknown to NVML is gpu_map_failed naming it", "[nvml]") {
  auto mapped = matchByUuid({"GPU-aaaa", "GPU-dddd"}, {"GPU-aaaa", "GPU-bbbb"});
  REQUIRE_FALSE(mapped.ok());
  CHECK(mapped.error().code == "gpu_map_failed");
  CHECK_THAT(mapped.error().message, Catch::Contains("CUDA device 1 (GPU-dddd)"));
}

TEST_CASE("Burn-in figures follow their formulas", "[nvml]") {
  // 10 GEMMs of 8192^3 in 1.5 s: 2 * 8192^3 * 10 / 1.5 / 1e12.
  CHECK(gemmTflops(8192, 10, 1.5) == Approx(7.33008e0).epsilon(1e-5));
  CHECK(gemmTflops(8192, 10, 0) == 0);
  // 2 GiB copies counted read + write: 100 copies of 2 * 2^31 bytes in 0.2 s.
  CHECK(gigabytesPerSecond(2ULL << 31, 100, 0.2) == Approx(2147.483648));
  CHECK(gigabytesPerSecond(1, 1, -1) == 0);
}

#endif  // PROVISIONER_TEST_HAS_AGENT_CUDA

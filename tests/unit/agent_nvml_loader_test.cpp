// The NVML loader (dlopen at run time) and the throttle-reason decoding; no GPU or driver needed.
#ifdef PROVISIONER_TEST_HAS_AGENT_CUDA

#include <catch2/catch.hpp>

#include "cuda/gpu_identity.hpp"
#include "cuda/nvml_api.hpp"
#include "cuda/nvml_loader.hpp"

using agent::cuda::NvmlLibrary;

TEST_CASE("NVML from a path that does not exist is a clear unavailable error", "[nvml]") {
  auto nvml = NvmlLibrary::load("/nonexistent/libnvidia-ml.so.1");
  REQUIRE_FALSE(nvml.ok());
  CHECK(nvml.error().kind == common::ErrorKind::kUnavailable);
  CHECK(nvml.error().code == "nvml_unavailable");
  CHECK_THAT(nvml.error().message, Catch::Contains("/nonexistent/libnvidia-ml.so.1"));
  CHECK_THAT(nvml.error().message, Catch::Contains("No such file"));
}

TEST_CASE("A library without the NVML symbols is refused naming the missing one", "[nvml]") {
  auto nvml = NvmlLibrary::load("libm.so.6");
  REQUIRE_FALSE(nvml.ok());
  CHECK(nvml.error().code == "nvml_unavailable");
  CHECK_THAT(nvml.error().message, Catch::Contains("no symbol nvmlInit_v2"));
}

TEST_CASE("The stand-in NVML loads and its calls are checked", "[nvml]") {
  auto nvml = NvmlLibrary::load(PROVISIONER_TEST_FAKE_NVML);
  REQUIRE(nvml.ok());
  const auto& library = **nvml;
  CHECK(library.check(agent::cuda::nvml::kSuccess, "nvmlDeviceGetSerial", 2).ok());
  auto failed = library.check(agent::cuda::nvml::kErrorNotSupported, "nvmlDeviceGetSerial", 2);
  REQUIRE_FALSE(failed.ok());
  CHECK(failed.error().code == "nvml_error");
  CHECK(failed.error().message == "nvmlDeviceGetSerial failed on GPU 2: Not Supported");
}

TEST_CASE("Throttle reason bits decode to the names the verdict reads", "[nvml]") {
  using agent::cuda::throttleReasonNames;
  CHECK(throttleReasonNames(0).empty());
  CHECK(throttleReasonNames(0x4) == std::vector<std::string>{"sw_power_cap"});
  CHECK(throttleReasonNames(0x8) == std::vector<std::string>{"hw_slowdown"});
  CHECK(throttleReasonNames(0x20) == std::vector<std::string>{"sw_thermal"});
  CHECK(throttleReasonNames(0x40) == std::vector<std::string>{"hw_thermal"});
  CHECK(throttleReasonNames(0x80) == std::vector<std::string>{"hw_power_brake"});
  CHECK(throttleReasonNames(0x40 | 0x20 | 0x8) ==
        std::vector<std::string>{"hw_slowdown", "sw_thermal", "hw_thermal"});
}

TEST_CASE("Benign throttle bits such as idle and application clocks are not reported", "[nvml]") {
  using agent::cuda::throttleReasonNames;
  CHECK(throttleReasonNames(0x1 | 0x2 | 0x10 | 0x100).empty());
  CHECK(throttleReasonNames(0x1 | 0x40) == std::vector<std::string>{"hw_thermal"});
}

#endif  // PROVISIONER_TEST_HAS_AGENT_CUDA

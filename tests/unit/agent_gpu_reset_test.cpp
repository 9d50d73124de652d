// The real backend's GPU reset through nvidia-smi, against stand-in nvidia-smi scripts: the
// arguments it is given, its words when it refuses, a missing or hanging nvidia-smi.
#ifdef PROVISIONER_TEST_HAS_AGENT_CUDA

#include <sys/stat.h>
#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <catch2/catch.hpp>

#include "cuda/gpu_reset.hpp"

namespace fs = std::filesystem;

namespace {

struct FakeNvidiaSmi {
  fs::path dir = fs::temp_directory_path() / ("fake-nvidia-smi-" + std::to_string(::getpid()));
  fs::path script = dir / "nvidia-smi";
  fs::path args = dir / "args";

  explicit FakeNvidiaSmi(const std::string& body) {
    fs::remove_all(dir);
    fs::create_directories(dir);
    std::ofstream(script) << "#!/bin/sh\necho \"$@\" > " << args.string() << "\n" << body;
    ::chmod(script.c_str(), 0755);
  }
  ~FakeNvidiaSmi() { fs::remove_all(dir); }
  std::string given() const {
    std::ifstream in(args);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }
  agent::cuda::GpuResetCommand command(std::chrono::seconds timeout = std::chrono::seconds{10}) {
    return {script.string(), timeout};
  }
};

}  // namespace

TEST_CASE("a GPU reset runs nvidia-smi --gpu-reset on the GPU's UUID", "[agent][reset]") {
  FakeNvidiaSmi smi("echo 'GPU 00000000:1B:00.0 was successfully reset.'\nexit 0\n");
  const std::string uuid = "GPU-8ae1c36a-0b1d-4f6e-9a55-0e4d1c7b2f10";
  REQUIRE(agent::cuda::resetGpuWithNvidiaSmi(uuid, smi.command()).ok());
  CHECK(smi.given() == "--gpu-reset -i " + uuid + "\n");
}

TEST_CASE("nvidia-smi's refusal comes back in its own words", "[agent][reset]") {
  FakeNvidiaSmi smi(
      "echo 'The following GPUs could not be reset:'\n"
      "echo '  GPU 00000000:1B:00.0: In use by another client'\nexit 255\n");
  auto reset = agent::cuda::resetGpuWithNvidiaSmi("GPU-1", smi.command());
  REQUIRE_FALSE(reset.ok());
  CHECK(reset.error().code == "reset_failed");
  CHECK(reset.error().message ==
        "nvidia-smi --gpu-reset -i GPU-1 exited 255: The following GPUs could not be reset: GPU "
        "00000000:1B:00.0: In use by another client");
}

TEST_CASE("a missing or hanging nvidia-smi is a clear error, not a hang", "[agent][reset]") {
  agent::cuda::GpuResetCommand missing{"/nonexistent/nvidia-smi", std::chrono::seconds{5}};
  auto absent = agent::cuda::resetGpuWithNvidiaSmi("GPU-1", missing);
  REQUIRE_FALSE(absent.ok());
  CHECK(absent.error().code == "program_not_found");

  FakeNvidiaSmi smi("exec sleep 30\n");
  const auto started = std::chrono::steady_clock::now();
  auto hung = agent::cuda::resetGpuWithNvidiaSmi("GPU-1", smi.command(std::chrono::seconds{1}));
  REQUIRE_FALSE(hung.ok());
  CHECK(hung.error().code == "program_timeout");
  CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds{10});
}

#endif  // PROVISIONER_TEST_HAS_AGENT_CUDA

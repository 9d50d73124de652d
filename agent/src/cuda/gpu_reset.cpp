#include "cuda/gpu_reset.hpp"

#include <cstdlib>

#include "common/subprocess.hpp"

namespace agent::cuda {
namespace {

// nvidia-smi's answer on one line, runs of blanks as one space, at most 300 characters: what
// the task's message carries.
std::string oneLine(const std::string& output) {
  std::string out;
  for (char c : output) {
    if (c == '\n' || c == '\r' || c == ' ' || c == '\t') {
      if (!out.empty() && out.back() != ' ') out += ' ';
    } else {
      out += c;
    }
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  if (out.size() > 300) out = out.substr(0, 300) + "...";
  return out;
}

}  // namespace

GpuResetCommand gpuResetCommandFromEnvironment() {
  GpuResetCommand command;
  if (const char* path = std::getenv("PROVISIONER_NVIDIA_SMI"); path != nullptr && *path != '\0') {
    command.nvidia_smi = path;
  }
  return command;
}

common::Result<void> resetGpuWithNvidiaSmi(const std::string& gpu_uuid,
                                           const GpuResetCommand& command) {
  std::string output;
  common::SubprocessOptions options;
  options.output = &output;
  options.timeout = command.timeout;
  PROV_ASSIGN(int status,
              common::runSubprocess({command.nvidia_smi, "--gpu-reset", "-i", gpu_uuid}, options));
  if (status == 0) return common::success();
  return common::fail(common::unavailable("reset_failed", "nvidia-smi --gpu-reset -i " + gpu_uuid +
                                                              " exited " + std::to_string(status) +
                                                              ": " + oneLine(output)));
}

}  // namespace agent::cuda

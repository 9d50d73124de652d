// Runs a helper program (initdb, pg_ctl, nvidia-smi) and waits for it, without a shell.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "common/result.hpp"

namespace common {

struct SubprocessOptions {
  std::string log_file{};  // stdout and stderr appended here; /dev/null when empty (and no output)
  std::string run_as{};    // user to switch to when running as root (PostgreSQL refuses root)
  // When set, stdout and stderr are captured here instead (the first 64 KiB; log_file ignored).
  std::string* output = nullptr;
  // Killed (SIGKILL) after this long: Timeout "program_timeout". 0: wait for as long as it runs.
  std::chrono::milliseconds timeout{0};
};

// Exit status of the program (argv[0], an absolute path); an error when it cannot be started
// (Unavailable "program_not_found"), is killed by a signal, or runs past the timeout.
Result<int> runSubprocess(const std::vector<std::string>& argv, const SubprocessOptions& options);

}  // namespace common

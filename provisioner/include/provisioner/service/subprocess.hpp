// Runs a helper program (initdb, pg_ctl) and waits for it, without a shell.
#pragma once

#include <string>
#include <vector>

#include "common/result.hpp"

namespace provisioner::service {

struct SubprocessOptions {
  std::string log_file;  // stdout and stderr appended here; /dev/null when empty
  std::string run_as;    // user to switch to when running as root (PostgreSQL refuses root)
};

// Exit status of the program; an error when it cannot be started or is killed by a signal.
common::Result<int> runSubprocess(const std::vector<std::string>& argv,
                                  const SubprocessOptions& options);

}  // namespace provisioner::service

// The provisionerctl entry point, callable in-process by tests.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "provisioner/cli/config.hpp"

namespace provisioner::cli {

inline constexpr const char* kCtlVersion = "0.1.0";

// Runs one provisionerctl invocation (`args` without the program name) and returns the exit
// code: 0 ok, 1 the server refused, 2 unreachable, 64 usage, 78 configuration.
int runCtl(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
           const Environment& env);

}  // namespace provisioner::cli

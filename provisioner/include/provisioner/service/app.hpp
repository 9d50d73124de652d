// The `provisioner` binary's commands: serve, migrate, token create/list/revoke.
#pragma once

#include <string>
#include <vector>

namespace provisioner::service {

// Runs one command; returns the process exit code (0 ok, 1 failure, 64 usage).
int runProvisioner(const std::vector<std::string>& args);

}  // namespace provisioner::service

// provisionerctl: the people's command-line client of the provisioning service's REST API.
#include <iostream>
#include <string>
#include <vector>

#include "provisioner/cli/ctl.hpp"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  return provisioner::cli::runCtl(args, std::cout, std::cerr,
                                  provisioner::cli::Environment::fromProcess());
}

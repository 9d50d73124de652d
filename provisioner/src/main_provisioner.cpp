#include "provisioner/service/app.hpp"

int main(int argc, char** argv) {
  return provisioner::service::runProvisioner(std::vector<std::string>(argv + 1, argv + argc));
}

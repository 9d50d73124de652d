// `provisioner bmc inventory --url URL --username U --password P [--ca FILE | --pin SHA256 |
// --insecure]`: crawls one BMC and prints its inventory JSON. The transport is injected
// (`connect`) so app.cpp wires the real libcurl client and tests a recorded one.
#pragma once

#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "redfish/client.hpp"

namespace provisioner::service {

struct BmcConnectOptions {
  std::string url;  // https://10.1.2.3 (scheme, host, optional port)
  std::string username;
  std::string password;   // never printed
  std::string caFile;     // --ca: verify against this bundle
  std::string pinSha256;  // --pin: certificate SHA-256 fingerprint, lower-case hex, no colons
  bool insecure = false;  // --insecure: no verification at all
};

using BmcConnector = std::function<std::shared_ptr<redfish::Client>(const BmcConnectOptions&)>;

// `args` are the words after "bmc" (e.g. {"inventory", "--url", ...}). Exit codes: 0 printed,
// 1 the BMC failed (message on `err`), 2 bad usage.
int runBmcCommand(std::vector<std::string> args, std::ostream& out, std::ostream& err,
                  BmcConnector connect);

}  // namespace provisioner::service

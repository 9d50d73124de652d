// `provisioner bmc COMMAND --url URL --username U --password P [--ca FILE | --pin SHA256 |
// --insecure] [flags]`: one operation on one BMC (inventory, power, boot, bios, firmware, update,
// tasks), JSON on stdout, errors on stderr. The transport is injected (`connect`) so app.cpp
// wires the real libcurl client and tests a recorded or simulated one. The subcommands live in
// bmc/ (flags.cpp parses, one file per family of operations).
#pragma once

#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "redfish/client.hpp"
#include "redfish/tasks.hpp"

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

// How `update --wait` follows a task. `timeout` is replaced by --timeout (default one hour);
// tests shorten `pollInterval`.
struct BmcCommandOptions {
  redfish::FollowOptions follow;
};

inline constexpr int kBmcExitDone = 0;    // printed, or the BMC did what was asked
inline constexpr int kBmcExitFailed = 1;  // the BMC failed or refused (reason on `err`)
inline constexpr int kBmcExitUsage = 2;   // unknown command or flag, missing or bad value

// `args` are the words after "bmc" (e.g. {"inventory", "--url", ...}). `--help` prints the usage
// on `out` and exits 0.
int runBmcCommand(std::vector<std::string> args, std::ostream& out, std::ostream& err,
                  BmcConnector connect, BmcCommandOptions options = {});

}  // namespace provisioner::service

#include "bmc_command.hpp"

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>
#include <optional>

#include "redfish/crawl.hpp"

namespace provisioner::service {
namespace {

constexpr const char* kUsage =
    "usage: provisioner bmc inventory --url URL --username USER --password PASSWORD\n"
    "                                 [--ca FILE | --pin SHA256 | --insecure]\n";

int usage(std::ostream& err, const std::string& problem) {
  err << "error: " << problem << "\n" << kUsage;
  return 2;
}

std::optional<std::string> normalisedPin(std::string pin) {
  pin.erase(std::remove(pin.begin(), pin.end(), ':'), pin.end());
  std::transform(pin.begin(), pin.end(), pin.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  const bool hex =
      std::all_of(pin.begin(), pin.end(), [](unsigned char c) { return std::isxdigit(c) != 0; });
  if (pin.size() != 64 || !hex) return std::nullopt;
  return pin;
}

// Fills `options` from --flag value pairs; returns the problem, or "" when all is well.
std::string parseFlags(const std::vector<std::string>& args, BmcConnectOptions& options) {
  int verifyModes = 0;
  for (std::size_t i = 1; i < args.size(); ++i) {
    const std::string& flag = args[i];
    if (flag == "--insecure") {
      options.insecure = true;
      ++verifyModes;
      continue;
    }
    if (i + 1 >= args.size()) return "flag " + flag + " needs a value";
    const std::string& value = args[++i];
    if (flag == "--url") {
      options.url = value;
    } else if (flag == "--username") {
      options.username = value;
    } else if (flag == "--password") {
      options.password = value;
    } else if (flag == "--ca") {
      options.caFile = value;
      ++verifyModes;
    } else if (flag == "--pin") {
      auto pin = normalisedPin(value);
      if (!pin) return "--pin takes a SHA-256 fingerprint (64 hex digits)";
      options.pinSha256 = *pin;
      ++verifyModes;
    } else {
      return "unknown flag " + flag;
    }
  }
  if (options.url.rfind("https://", 0) != 0 && options.url.rfind("http://", 0) != 0) {
    return "--url must be an http:// or https:// URL";
  }
  if (options.username.empty()) return "--username is required";
  if (options.password.empty()) return "--password is required";
  if (verifyModes > 1) return "--ca, --pin and --insecure exclude each other";
  return {};
}

}  // namespace

int runBmcCommand(std::vector<std::string> args, std::ostream& out, std::ostream& err,
                  BmcConnector connect) {
  if (args.empty() || args[0] == "--help" || args[0] == "-h") return usage(err, "no command");
  if (args[0] != "inventory") return usage(err, "unknown bmc command " + args[0]);
  BmcConnectOptions options;
  if (auto problem = parseFlags(args, options); !problem.empty()) return usage(err, problem);
  auto client = connect(options);
  if (!client) {
    err << "error: cannot connect to " << options.url << "\n";
    return 1;
  }
  auto inventory = redfish::crawlInventory(client);
  if (!inventory) {
    const auto& error = inventory.error();
    err << "error: " << error.message << " (" << error.code << ")\n";
    if (!error.detail.empty()) err << "detail: " << error.detail << "\n";
    return 1;
  }
  out << redfish::toJson(*inventory).dump(2) << "\n";
  return 0;
}

}  // namespace provisioner::service

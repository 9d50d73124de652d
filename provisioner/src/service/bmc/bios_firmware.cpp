// `bmc inventory` and `bmc firmware` (the crawl of crawl.hpp, whole or its FirmwareInventory)
// and `bmc bios` (current and pending attributes; --set FILE.json PATCHes the pending settings,
// validated against the attribute registry, through bios.hpp).
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <system_error>

#include "call.hpp"
#include "redfish/bios.hpp"
#include "redfish/crawl.hpp"

namespace provisioner::service::bmc {
namespace {

constexpr std::uintmax_t kMaxBiosFileBytes = 1024 * 1024;

int runInventory(BmcCall& call) {
  auto inventory = redfish::crawlInventory(call.client);
  if (!inventory) return printError(call.err, inventory.error());
  return printJson(call.out, redfish::toJson(*inventory));
}

int runFirmware(BmcCall& call) {
  redfish::CrawlOptions options;
  options.crawlChassis = false;
  options.crawlManagers = false;
  auto inventory = redfish::crawlInventory(call.client, options);
  if (!inventory) return printError(call.err, inventory.error());
  nlohmann::json firmware = nlohmann::json::array();
  for (const auto& entry : inventory->firmware) {
    firmware.push_back({{"id", entry.id},
                        {"odata_id", entry.odataId},
                        {"name", entry.name},
                        {"version", entry.version},
                        {"software_id", entry.softwareId},
                        {"updateable", entry.updateable}});
  }
  return printJson(call.out, {{"firmware", firmware}, {"warnings", inventory->warnings}});
}

// The --set file: a JSON object of BIOS attribute names to values.
common::Result<nlohmann::json> readBiosFile(const std::string& path) {
  std::error_code error;
  const auto size = std::filesystem::file_size(path, error);
  std::ifstream in(path, std::ios::binary);
  if (error || !in) {
    return common::invalidArgument("bios_file_unreadable", "cannot read " + path, "--set");
  }
  if (size > kMaxBiosFileBytes) {
    return common::invalidArgument("bios_file_too_large", path + " is over 1 MiB", "--set");
  }
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  auto desired = nlohmann::json::parse(text, nullptr, false);
  if (desired.is_discarded() || !desired.is_object()) {
    return common::invalidArgument(
        "bios_file_malformed", path + " must hold a JSON object of BIOS attribute names to values",
        "--set");
  }
  return desired;
}

std::string checkBios(const ParsedFlags& flags) {
  auto file = flags.value("--set");
  if (!file) return {};
  auto desired = readBiosFile(*file);
  return desired ? std::string{} : desired.error().message;
}

common::Result<nlohmann::json> readBiosState(redfish::Client& client, const std::string& system) {
  PROV_ASSIGN(auto bios, redfish::readBios(client, system));
  PROV_ASSIGN(auto pending, redfish::readPendingBios(client, bios));
  return nlohmann::json{{"system", system},
                        {"bios", bios.biosPath},
                        {"attribute_registry", bios.registryName},
                        {"settings", bios.settingsPath},
                        {"supported_apply_times", bios.supportedApplyTimes},
                        {"attributes", bios.attributes},
                        {"pending", pending}};
}

common::Result<nlohmann::json> applyBios(BmcCall& call, const std::string& system,
                                         const nlohmann::json& desired) {
  auto& client = *call.client;
  PROV_ASSIGN(auto bios, redfish::readBios(client, system));
  auto registry = redfish::readBiosRegistry(client, bios);
  if (!registry) {
    call.err << "warning: the BIOS attribute registry cannot be read (" << registry.error().message
             << "); only the BMC checks the values\n";
  }
  PROV_ASSIGN(auto quirks, readQuirks(client));
  PROV_ASSIGN(auto applied, redfish::applyBiosSettings(client, system, desired, quirks,
                                                       registry ? &*registry : nullptr));
  return nlohmann::json{{"system", system},
                        {"bios", bios.biosPath},
                        {"patched", applied.patched},
                        {"registry_checked", registry.ok()},
                        {"job", applied.job ? taskJson(*applied.job) : nlohmann::json(nullptr)}};
}

common::Result<nlohmann::json> bios(BmcCall& call) {
  PROV_ASSIGN(auto system, systemPath(*call.client, call.flags));
  auto file = call.flags.value("--set");
  if (!file) return readBiosState(*call.client, system);
  PROV_ASSIGN(auto desired, readBiosFile(*file));
  return applyBios(call, system, desired);
}

int runBios(BmcCall& call) {
  return finish(call, bios(call));
}

}  // namespace

const Subcommand& inventoryCommand() {
  static const Subcommand command{
      "inventory", "",      "crawl the BMC and print its inventory (docs/redfish.md)",
      {},          nullptr, runInventory};
  return command;
}

const Subcommand& firmwareCommand() {
  static const Subcommand command{"firmware",
                                  "",
                                  "print the FirmwareInventory: id, odata_id (an update\n"
                                  "--target), name, version, software_id, updateable",
                                  {},
                                  nullptr,
                                  runFirmware};
  return command;
}

const Subcommand& biosCommand() {
  static const Subcommand command{"bios",
                                  "[--set FILE.json] [--system PATH]",
                                  "print the BIOS attributes, current and pending; --set:\n"
                                  "PATCH the pending settings (applied at the next reset)\n"
                                  "from a JSON object {\"Attribute\": value, ...}",
                                  {{"--set", "--system"}, {}, {}},
                                  checkBios,
                                  runBios};
  return command;
}

}  // namespace provisioner::service::bmc

// `bmc power` (the power state; ComputerSystem.Reset or, with --chassis, Chassis.Reset) and
// `bmc boot` (the boot override; a one-time override), through redfish/power.hpp and boot.hpp.
#include <optional>

#include "call.hpp"
#include "redfish/boot.hpp"
#include "redfish/json.hpp"
#include "redfish/power.hpp"

namespace provisioner::service::bmc {
namespace {

bool onChassis(const ParsedFlags& flags) {
  return flags.has("--chassis") || flags.has("--chassis-path");
}

common::Result<nlohmann::json> power(redfish::Client& client, const ParsedFlags& flags) {
  const bool chassis = onChassis(flags);
  std::string path;
  if (chassis) {
    PROV_ASSIGN(path, chassisPath(client, flags));
  } else {
    PROV_ASSIGN(path, systemPath(client, flags));
  }
  const char* key = chassis ? "chassis" : "system";
  auto resetType = flags.value("--reset");
  if (!resetType) {
    PROV_ASSIGN(auto state, redfish::powerState(client, path));
    return nlohmann::json{{key, path}, {"power_state", state}};
  }
  PROV_ASSIGN(auto quirks, readQuirks(client));
  PROV_ASSIGN(auto outcome, chassis ? redfish::resetChassisWith(client, path, *resetType, quirks)
                                    : redfish::resetSystemWith(client, path, *resetType, quirks));
  return nlohmann::json{
      {key, path}, {"reset_type", outcome.resetType}, {"already_in_state", outcome.alreadyInState}};
}

int runPower(BmcCall& call) {
  return finish(call, power(*call.client, call.flags));
}

// --once words and the library's boot targets.
std::optional<redfish::BootTarget> bootTarget(const std::string& word) {
  if (word == "pxe") return redfish::BootTarget::kPxe;
  if (word == "http") return redfish::BootTarget::kUefiHttp;
  if (word == "cd") return redfish::BootTarget::kCd;
  return std::nullopt;
}

std::string checkBoot(const ParsedFlags& flags) {
  auto once = flags.value("--once");
  if (once && !bootTarget(*once)) {
    if (*once == "hdd" || *once == "bios") {
      return "--once " + *once + " is not supported yet (the redfish library sets pxe, http or cd)";
    }
    return "--once takes pxe, http or cd";
  }
  if (auto uri = flags.value("--uefi-http-uri")) {
    if (once != "http") return "--uefi-http-uri needs --once http";
    if (uri->rfind("http://", 0) != 0 && uri->rfind("https://", 0) != 0) {
      return "--uefi-http-uri must be an http:// or https:// URL";
    }
  }
  return {};
}

std::string text(const nlohmann::json& object, std::string_view key) {
  return redfish::stringAt(object, key).value_or("");
}

// The system's Boot object, as read; absent strings are "".
nlohmann::json bootJson(const nlohmann::json& boot) {
  nlohmann::json allowed = nlohmann::json::array();
  if (const auto* values =
          redfish::member(boot, "BootSourceOverrideTarget@Redfish.AllowableValues");
      values != nullptr && values->is_array()) {
    for (const auto& value : *values) {
      if (value.is_string()) allowed.push_back(value);
    }
  }
  return {{"override_enabled", text(boot, "BootSourceOverrideEnabled")},
          {"override_target", text(boot, "BootSourceOverrideTarget")},
          {"override_mode", text(boot, "BootSourceOverrideMode")},
          {"http_boot_uri", text(boot, "HttpBootUri")},
          {"allowed_targets", allowed}};
}

common::Result<nlohmann::json> boot(redfish::Client& client, const ParsedFlags& flags) {
  PROV_ASSIGN(auto path, systemPath(client, flags));
  auto once = flags.value("--once");
  if (!once) {
    PROV_ASSIGN(auto system, getJson(client, path));
    const auto* current = redfish::member(system, "Boot");
    if (current == nullptr || !current->is_object()) {
      return notSupported("system " + path + " has no Boot properties");
    }
    return nlohmann::json{{"system", path}, {"boot", bootJson(*current)}};
  }
  redfish::BootOverride request;
  request.target = *bootTarget(*once);
  request.httpBootUri = flags.value("--uefi-http-uri").value_or("");
  PROV_ASSIGN(auto quirks, readQuirks(client));
  PROV_TRY(redfish::setOneTimeBoot(client, path, request, quirks));
  nlohmann::json set = {{"override_enabled", "Once"},
                        {"override_target", std::string(redfish::toString(request.target))}};
  if (!request.httpBootUri.empty()) set["http_boot_uri"] = request.httpBootUri;
  return nlohmann::json{{"system", path}, {"set", set}};
}

int runBoot(BmcCall& call) {
  return finish(call, boot(*call.client, call.flags));
}

}  // namespace

const Subcommand& powerCommand() {
  static const Subcommand command{
      "power",
      "[--reset TYPE] [--chassis] [--chassis-path PATH] [--system PATH]",
      "print the power state; --reset TYPE: ComputerSystem.Reset\n"
      "with that ResetType (On, ForceOff, ForceRestart,\n"
      "GracefulShutdown, ... as the BMC allows); --chassis: the\n"
      "chassis instead (Chassis.Reset, the AC/aux power cycle)",
      {{"--reset", "--system", "--chassis-path"}, {}, {"--chassis"}},
      nullptr,
      runPower};
  return command;
}

const Subcommand& bootCommand() {
  static const Subcommand command{"boot",
                                  "[--once pxe|http|cd] [--uefi-http-uri URI] [--system PATH]",
                                  "print the boot override; --once: set a one-time override\n"
                                  "(http: UEFI HTTP boot, from --uefi-http-uri or DHCP)",
                                  {{"--once", "--uefi-http-uri", "--system"}, {}, {}},
                                  checkBoot,
                                  runBoot};
  return command;
}

}  // namespace provisioner::service::bmc

#include "host_control.hpp"

#include <cstdio>
#include <ctime>

#include "inventory/nodes.hpp"
#include "inventory/workflow_runs.hpp"
#include "redfish/errors.hpp"
#include "redfish/json.hpp"

namespace workflows::lifecycle {

common::Result<redfish::Quirks> quirksOf(redfish::Client& client, StepContext& ctx) {
  if (auto vendor = redfish::stringAt(ctx.data(), "vendor")) return redfish::quirksFor(*vendor);
  PROV_ASSIGN(auto root, getJson(client, "/redfish/v1"));
  auto quirks = redfish::quirksForRoot(root);
  ctx.data()["vendor"] = quirks.vendor;
  return quirks;
}

common::Result<nlohmann::json> getJson(redfish::Client& client, const std::string& target) {
  redfish::Request request;
  request.target = target;
  PROV_ASSIGN(auto response, client.send(std::move(request)));
  if (!response.isSuccess()) return common::fail(redfish::httpError("GET", response));
  return redfish::parseBody(response.body, response.url);
}

common::Result<redfish::ResetOutcome> bootHost(redfish::Client& client,
                                               const std::string& system_path,
                                               const redfish::Quirks& quirks) {
  PROV_ASSIGN(auto state, redfish::powerState(client, system_path));
  const auto action = state == "Off" ? redfish::PowerAction::kOn : redfish::PowerAction::kRestart;
  return redfish::resetSystem(client, system_path, action, quirks);
}

std::string isoTime(TimePoint at) {
  const auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(at.time_since_epoch()).count();
  const std::time_t seconds = static_cast<std::time_t>(ms / 1000);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[96];
  std::snprintf(text, sizeof text, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", utc.tm_year + 1900,
                utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec,
                static_cast<int>(ms % 1000));
  return text;
}

std::optional<TimePoint> parseIsoTime(const std::string& text) {
  std::tm utc{};
  int millis = 0;
  if (std::sscanf(text.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d.%3dZ", &utc.tm_year, &utc.tm_mon,
                  &utc.tm_mday, &utc.tm_hour, &utc.tm_min, &utc.tm_sec, &millis) != 7) {
    return std::nullopt;
  }
  utc.tm_year -= 1900;
  utc.tm_mon -= 1;
  const std::time_t seconds = timegm(&utc);
  return TimePoint(std::chrono::seconds(seconds)) + std::chrono::milliseconds(millis);
}

std::optional<TimePoint> timeAt(const nlohmann::json& object, const char* key) {
  auto text = redfish::stringAt(object, key);
  return text ? parseIsoTime(*text) : std::nullopt;
}

common::Result<std::optional<inventory::HardwareProfile>> profileOf(const Env& env,
                                                                    const StepContext& ctx) {
  if (auto name = redfish::stringAt(ctx.data(), "profile"); name && !name->empty()) {
    PROV_ASSIGN(auto profile, inventory::getHardwareProfile(*env.deps.db, *name));
    return std::optional<inventory::HardwareProfile>(std::move(profile));
  }
  PROV_ASSIGN(auto node_id, nodeIdOf(ctx));
  PROV_ASSIGN(auto node, inventory::getNode(*env.deps.db, node_id));
  return inventory::profileForModel(*env.deps.db, node.hardware_model);
}

common::Result<inventory::Id> nodeIdOf(const StepContext& ctx) {
  if (ctx.run().node_id) return *ctx.run().node_id;
  if (auto id = redfish::intAt(ctx.data(), "node_id")) return static_cast<inventory::Id>(*id);
  return common::fail(common::internalError("the run has no node yet"));
}

std::string systemPathOf(const StepContext& ctx) {
  return redfish::stringAt(ctx.data(), "system_path").value_or("");
}

StepOutcome bmcTrouble(const std::string& doing, const common::Error& error) {
  auto outcome = StepOutcome::retry(error.code.empty() ? "bmc_error" : error.code,
                                    doing + ": " + error.message);
  // No free session: it clears when the sessions expire (the step's patience), not in 4 tries.
  outcome.patient = error.code == redfish::codes::kSessionLimit;
  return outcome;
}

redfish::BootOverride networkBootOverride(const Env& env) {
  redfish::BootOverride boot;
  if (env.settings.boot_target == "uefi_http") {
    boot.target = redfish::BootTarget::kUefiHttp;
    boot.httpBootUri = env.settings.public_url + "/boot/ipxe";
  }
  return boot;
}

nlohmann::json nodeBmcContext(const Env& env, inventory::Id node_id) {
  nlohmann::json out = nlohmann::json::object();
  auto run = inventory::latestRunForNode(*env.deps.db, kNodeLifecycle, node_id);
  if (!run || !*run) return out;
  const auto data = nlohmann::json::parse((*run)->context_json, nullptr, false);
  if (!data.is_object()) return out;
  for (const char* key :
       {"base_url", "bmc_address", "bmc_mac", "system_path", "chassis_path", "vendor", "profile"}) {
    if (data.contains(key)) out[key] = data[key];
  }
  return out;
}

}  // namespace workflows::lifecycle

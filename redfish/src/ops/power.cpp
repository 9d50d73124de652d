#include "redfish/power.hpp"

#include <algorithm>

#include "http_util.hpp"
#include "redfish/errors.hpp"

namespace redfish {
namespace {

struct ResetAction {
  std::string target;
  std::optional<std::vector<std::string>> allowed;
};

common::Result<ResetAction> readResetAction(Client& client, const std::string& path,
                                            const char* actionName = "#ComputerSystem.Reset") {
  PROV_ASSIGN(auto resource, ops::getResource(client, path));
  const Json* action = at(resource.body, {"Actions", actionName});
  if (action == nullptr) {
    return ops::notSupported(path + " has no " + std::string(actionName + 1) + " action");
  }
  auto target = stringAt(*action, "target");
  if (!target) return malformedResponse(path, "the Reset action has no target");
  PROV_ASSIGN(auto allowed, ops::allowableValues(client, *action, "ResetType"));
  return ResetAction{*target, std::move(allowed)};
}

common::Result<ResetOutcome> postReset(Client& client, const std::string& target,
                                       const std::string& resetType, const Quirks& quirks) {
  Request request;
  request.method = Method::kPost;
  request.target = target;
  request.body = Json{{"ResetType", resetType}}.dump();
  PROV_ASSIGN(auto response, client.send(std::move(request)));
  if (response.status == 409 && quirks.redundantPowerConflictIsSuccess) {
    return ResetOutcome{resetType, true};
  }
  if (!response.isSuccess()) return httpError("POST", response);
  return ResetOutcome{resetType, false};
}

common::Result<ResetOutcome> resetWith(Client& client, const std::string& path,
                                       const char* actionName, const std::string& resetType,
                                       const Quirks& quirks) {
  PROV_ASSIGN(auto reset, readResetAction(client, path, actionName));
  if (reset.allowed &&
      std::find(reset.allowed->begin(), reset.allowed->end(), resetType) == reset.allowed->end()) {
    return ops::notAllowed("ResetType", resetType, *reset.allowed);
  }
  return postReset(client, reset.target, resetType, quirks);
}

}  // namespace

const std::vector<std::string>& resetPreferences(PowerAction action) {
  static const std::vector<std::string> on{"On", "ForceOn"};
  static const std::vector<std::string> off{"GracefulShutdown", "ForceOff"};
  static const std::vector<std::string> forceOff{"ForceOff"};
  static const std::vector<std::string> restart{"GracefulRestart", "ForceRestart", "PowerCycle"};
  static const std::vector<std::string> forceRestart{"ForceRestart", "PowerCycle"};
  switch (action) {
    case PowerAction::kOn:
      return on;
    case PowerAction::kOff:
      return off;
    case PowerAction::kForceOff:
      return forceOff;
    case PowerAction::kRestart:
      return restart;
    case PowerAction::kForceRestart:
      return forceRestart;
  }
  return on;
}

common::Result<std::string> chooseResetType(
    PowerAction action, const std::optional<std::vector<std::string>>& allowed) {
  const auto& preferences = resetPreferences(action);
  if (!allowed) return preferences.front();
  for (const auto& preferred : preferences) {
    if (std::find(allowed->begin(), allowed->end(), preferred) != allowed->end()) return preferred;
  }
  return ops::notAllowed("ResetType", preferences.front(), *allowed);
}

common::Result<std::string> powerState(Client& client, const std::string& systemPath) {
  PROV_ASSIGN(auto system, ops::getResource(client, systemPath));
  auto state = stringAt(system.body, "PowerState");
  if (!state) return malformedResponse(systemPath, "PowerState is missing");
  return *state;
}

common::Result<ResetOutcome> resetSystem(Client& client, const std::string& systemPath,
                                         PowerAction action, const Quirks& quirks) {
  PROV_ASSIGN(auto reset, readResetAction(client, systemPath));
  PROV_ASSIGN(auto resetType, chooseResetType(action, reset.allowed));
  return postReset(client, reset.target, resetType, quirks);
}

common::Result<ResetOutcome> resetSystemWith(Client& client, const std::string& systemPath,
                                             const std::string& resetType, const Quirks& quirks) {
  return resetWith(client, systemPath, "#ComputerSystem.Reset", resetType, quirks);
}

common::Result<ResetOutcome> resetChassisWith(Client& client, const std::string& chassisPath,
                                              const std::string& resetType, const Quirks& quirks) {
  return resetWith(client, chassisPath, "#Chassis.Reset", resetType, quirks);
}

common::Result<std::string> systemChassis(Client& client, const std::string& systemPath) {
  PROV_ASSIGN(auto system, ops::getResource(client, systemPath));
  const auto* links = member(system.body, "Links");
  const auto chassis = links ? memberLinks(*links, "Chassis") : std::vector<std::string>{};
  if (chassis.empty()) return malformedResponse(systemPath, "Links.Chassis is missing");
  for (const auto& path : chassis) {
    PROV_ASSIGN(auto body, ops::getResource(client, path));
    const auto* actions = member(body.body, "Actions");
    if (actions && member(*actions, "#Chassis.Reset")) return path;
  }
  return chassis.front();
}

}  // namespace redfish

#include "redfish/maintenance.hpp"

#include <algorithm>

#include "http_util.hpp"
#include "redfish/errors.hpp"

namespace redfish {

common::Result<std::optional<TaskRef>> secureEraseDrive(Client& client,
                                                        const std::string& drivePath) {
  PROV_ASSIGN(auto drive, ops::getResource(client, drivePath));
  const Json* action = at(drive.body, {"Actions", "#Drive.SecureErase"});
  auto target = action ? stringAt(*action, "target") : std::nullopt;
  if (!target) return ops::notSupported("drive " + drivePath + " has no SecureErase action");
  PROV_ASSIGN(auto response, ops::postJson(client, *target, Json::object()));
  return taskRefFrom(response);
}

common::Result<void> resetManagerToDefaults(Client& client, const std::string& managerPath,
                                            const std::string& resetType) {
  PROV_ASSIGN(auto manager, ops::getResource(client, managerPath));
  const Json* action = at(manager.body, {"Actions", "#Manager.ResetToDefaults"});
  auto target = action ? stringAt(*action, "target") : std::nullopt;
  if (!target) return ops::notSupported("manager " + managerPath + " has no ResetToDefaults");
  PROV_ASSIGN(auto allowed, ops::allowableValues(client, *action, "ResetType"));
  if (allowed && std::find(allowed->begin(), allowed->end(), resetType) == allowed->end()) {
    return ops::notAllowed("ResetType", resetType, *allowed);
  }
  PROV_TRY(ops::postJson(client, *target, Json{{"ResetType", resetType}}));
  return common::success();
}

}  // namespace redfish

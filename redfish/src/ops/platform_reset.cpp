#include "redfish/platform_reset.hpp"

#include <algorithm>

#include "http_util.hpp"
#include "redfish/errors.hpp"

namespace redfish {

bool isNotOffered(const common::Error& error) {
  return error.code == codes::kNotSupported;
}

common::Result<void> deleteAccount(Client& client, const std::string& accountIdOrUserName,
                                   const Quirks& /*quirks*/) {
  PROV_ASSIGN(auto account, ops::findAccount(client, accountIdOrUserName, /*match_id=*/true));
  if (account) {
    Request request;
    request.method = Method::kDelete;
    request.target = account->path;
    PROV_TRY(ops::expectSuccess(client.send(std::move(request)), "DELETE"));
    return common::success();
  }
  return common::notFound("bmc_account_not_found", "no BMC account " + accountIdOrUserName);
}

common::Result<void> decommissionSystem(Client& client, const std::string& systemPath,
                                        const std::vector<std::string>& decommissionTypes) {
  PROV_ASSIGN(auto system, ops::getResource(client, systemPath));
  const Json* action = at(system.body, {"Actions", "#ComputerSystem.Decommission"});
  auto target = action ? stringAt(*action, "target") : std::nullopt;
  if (!target) return ops::notSupported("system " + systemPath + " offers no Decommission");
  PROV_ASSIGN(auto allowed, ops::allowableValues(client, *action, "DecommissionTypes"));
  for (const auto& type : decommissionTypes) {
    if (allowed && std::find(allowed->begin(), allowed->end(), type) == allowed->end()) {
      return ops::notAllowed("DecommissionTypes", type, *allowed);
    }
  }
  PROV_TRY(ops::postJson(client, *target, Json{{"DecommissionTypes", decommissionTypes}}));
  return common::success();
}

}  // namespace redfish

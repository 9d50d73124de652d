// Returning a node's platform to defaults when it leaves the fleet: BMC accounts the service
// created, ComputerSystem.Decommission. A missing action is bmc_not_supported (isNotOffered), so
// a workflow records it instead of failing. Bios reset: bios.hpp; Manager reset: maintenance.hpp.
#pragma once

#include <string>
#include <vector>

#include "common/error.hpp"
#include "common/result.hpp"
#include "redfish/client.hpp"
#include "redfish/quirks.hpp"

namespace redfish {

// True for the error an operation returns when the BMC does not offer the action.
bool isNotOffered(const common::Error& error);

// DELETEs the AccountService account whose Id or UserName is `accountIdOrUserName`;
// bmc_account_not_found when there is none.
common::Result<void> deleteAccount(Client& client, const std::string& accountIdOrUserName,
                                   const Quirks& quirks = {});

// #ComputerSystem.Decommission with DecommissionTypes (checked against the allowable values).
common::Result<void> decommissionSystem(Client& client, const std::string& systemPath,
                                        const std::vector<std::string>& decommissionTypes);

}  // namespace redfish

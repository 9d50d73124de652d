// Power state and ComputerSystem.Reset with a ResetType chosen from what the BMC allows.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "redfish/client.hpp"
#include "redfish/quirks.hpp"

namespace redfish {

enum class PowerAction {
  kOn,            // On, else ForceOn
  kOff,           // GracefulShutdown, else ForceOff
  kForceOff,      // ForceOff
  kRestart,       // GracefulRestart, else ForceRestart, else PowerCycle
  kForceRestart,  // ForceRestart, else PowerCycle
};

// The preferred ResetTypes for an action, best first.
const std::vector<std::string>& resetPreferences(PowerAction action);

// The first preference the BMC allows; when the BMC does not say (nullopt), the first preference.
// None allowed -> bmc_value_not_allowed listing the allowed ones.
common::Result<std::string> chooseResetType(PowerAction action,
                                            const std::optional<std::vector<std::string>>& allowed);

common::Result<std::string> powerState(Client& client, const std::string& systemPath);

struct ResetOutcome {
  std::string resetType;
  bool alreadyInState = false;  // the BMC answered 409 to a redundant action (Dell)
};

// Reads the system, its Reset action and allowable values (inline or @Redfish.ActionInfo),
// chooses the ResetType and POSTs it.
common::Result<ResetOutcome> resetSystem(Client& client, const std::string& systemPath,
                                         PowerAction action, const Quirks& quirks = {});

// As resetSystem with an explicit ResetType, checked against the allowable values.
common::Result<ResetOutcome> resetSystemWith(Client& client, const std::string& systemPath,
                                             const std::string& resetType,
                                             const Quirks& quirks = {});

// Chassis.Reset with an explicit ResetType (e.g. ForceOff then On: the AC/aux power cycle that
// HGX baseboard firmware needs), checked against the chassis action's allowable values.
common::Result<ResetOutcome> resetChassisWith(Client& client, const std::string& chassisPath,
                                              const std::string& resetType,
                                              const Quirks& quirks = {});

// The chassis whose Chassis.Reset powers the system: of the system's Links.Chassis the first
// with that action, else the first linked (DGX: /Chassis/DGX, not the component chassis an
// inventory lists first). MalformedResponse when the system links no chassis.
common::Result<std::string> systemChassis(Client& client, const std::string& systemPath);

}  // namespace redfish

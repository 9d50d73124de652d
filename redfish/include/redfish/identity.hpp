// Who is this BMC: the discovery probe, in a few requests (root, system, chassis, manager, NIC).
#pragma once

#include <string>

#include "common/result.hpp"
#include "redfish/client.hpp"

namespace redfish {

struct Identity {
  std::string vendor;  // quirks table key (dell, hpe, ...)
  std::string manufacturer, model;
  std::string systemSerial, chassisSerial, uuid;
  std::string bmcMac, bmcFirmware;
};

// The first system, its first chassis and managing manager (Links), the manager's first
// EthernetInterface MAC.
common::Result<Identity> readIdentity(Client& client);

}  // namespace redfish

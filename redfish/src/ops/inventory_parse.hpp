// Pure readers from one Redfish resource body to an inventory struct. Never throw: a field of
// the wrong type reads as absent.
#pragma once

#include <nlohmann/json.hpp>

#include "redfish/inventory.hpp"

namespace redfish::ops {

ServiceInfo parseServiceInfo(const nlohmann::json& root);
System parseSystem(const nlohmann::json& body);
Processor parseProcessor(const nlohmann::json& body);
Dimm parseDimm(const nlohmann::json& body);
EthernetInterface parseEthernetInterface(const nlohmann::json& body);
Drive parseDrive(const nlohmann::json& body);
Chassis parseChassis(const nlohmann::json& body);
std::vector<PowerSupply> parsePowerSupplies(const nlohmann::json& power);
PowerSupply parsePowerSupply(const nlohmann::json& body);
std::vector<Temperature> parseTemperatures(const nlohmann::json& thermal);
PcieDevice parsePcieDevice(const nlohmann::json& body);
NetworkAdapter parseNetworkAdapter(const nlohmann::json& body);
NetworkPort parseNetworkPort(const nlohmann::json& body);
FirmwareEntry parseFirmware(const nlohmann::json& body);
Manager parseManager(const nlohmann::json& body);

// "N/A", "", "Not Available" and friends from BMCs mean "unknown".
bool isPlaceholder(const std::string& value);

}  // namespace redfish::ops

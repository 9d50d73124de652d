#include "redfish/identity.hpp"

#include "http_util.hpp"
#include "redfish/errors.hpp"

namespace redfish {
namespace {

std::optional<std::string> firstLink(const Json& object, std::string_view key) {
  if (auto link = odataLink(object, key)) return link;
  auto links = memberLinks(object, key);
  if (links.empty()) return std::nullopt;
  return links.front();
}

void readManager(Client& client, const std::string& path, Identity& identity) {
  auto manager = ops::getResource(client, path);
  if (!manager) return;
  identity.bmcFirmware = stringAt(manager->body, "FirmwareVersion").value_or("");
  auto nicsPath = odataLink(manager->body, "EthernetInterfaces");
  if (!nicsPath) return;
  auto nics = ops::getResource(client, *nicsPath);
  if (!nics) return;
  for (const auto& link : memberLinks(nics->body)) {
    auto nic = ops::getResource(client, link);
    if (!nic) continue;
    identity.bmcMac = stringAt(nic->body, "MACAddress").value_or("");
    if (!identity.bmcMac.empty()) return;
  }
}

}  // namespace

common::Result<Identity> readIdentity(Client& client) {
  PROV_ASSIGN(auto root, ops::getResource(client, "/redfish/v1"));
  Identity identity;
  identity.vendor = detectVendor(root.body);
  identity.uuid = stringAt(root.body, "UUID").value_or("");
  auto systemsPath = odataLink(root.body, "Systems");
  if (!systemsPath) return malformedResponse("/redfish/v1", "the service root links no Systems");
  PROV_ASSIGN(auto systems, ops::getResource(client, *systemsPath));
  auto members = memberLinks(systems.body);
  if (members.empty()) return malformedResponse(*systemsPath, "no systems");
  PROV_ASSIGN(auto system, ops::getResource(client, members.front()));
  identity.manufacturer = stringAt(system.body, "Manufacturer").value_or("");
  identity.model = stringAt(system.body, "Model").value_or("");
  identity.systemSerial = stringAt(system.body, "SerialNumber").value_or("");
  if (auto uuid = stringAt(system.body, "UUID")) identity.uuid = *uuid;
  const Json* links = member(system.body, "Links");
  if (links == nullptr) return identity;
  if (auto chassisPath = firstLink(*links, "Chassis")) {
    if (auto chassis = ops::getResource(client, *chassisPath)) {
      identity.chassisSerial = stringAt(chassis->body, "SerialNumber").value_or("");
    }
  }
  if (auto managerPath = firstLink(*links, "ManagedBy"))
    readManager(client, *managerPath, identity);
  return identity;
}

}  // namespace redfish

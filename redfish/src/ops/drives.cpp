#include "redfish/drives.hpp"

#include <algorithm>
#include <array>

#include "http_util.hpp"
#include "redfish/errors.hpp"

namespace redfish {
namespace {

DriveInfo driveFrom(const Json& body, const std::string& path) {
  DriveInfo d;
  d.odataId = odataId(body).value_or(path);
  d.serialNumber = stringAt(body, "SerialNumber").value_or("");
  d.model = stringAt(body, "Model").value_or("");
  d.manufacturer = stringAt(body, "Manufacturer").value_or("");
  d.mediaType = stringAt(body, "MediaType").value_or("");
  d.protocol = stringAt(body, "Protocol").value_or("");
  d.capacityBytes = intAt(body, "CapacityBytes");
  d.secureEraseOffered = at(body, {"Actions", "#Drive.SecureErase"}) != nullptr;
  return d;
}

// The drive links of one Storage: its Drives array (the usual form).
std::vector<std::string> driveLinks(const Json& storage) {
  std::vector<std::string> links;
  if (const Json* drives = member(storage, "Drives"); drives && drives->is_array()) {
    for (const auto& link : *drives) {
      if (auto id = odataId(link)) links.push_back(*id);
    }
  }
  return links;
}

void appendNew(std::vector<std::string>& into, const std::vector<std::string>& links) {
  for (const auto& link : links) {
    if (std::find(into.begin(), into.end(), link) == into.end()) into.push_back(link);
  }
}

common::Result<void> addStorageDrives(Client& client, const Json& system,
                                      std::vector<std::string>& links) {
  auto storagePath = odataLink(system, "Storage");
  if (!storagePath) return {};
  PROV_ASSIGN(auto collection, ops::getResource(client, *storagePath));
  for (const auto& storageLink : memberLinks(collection.body)) {
    PROV_ASSIGN(auto storage, ops::getResource(client, storageLink));
    appendNew(links, driveLinks(storage.body));
  }
  return {};
}

// A chassis links its drives in Links.Drives, or (Chassis v1.14+) through a Drives collection.
common::Result<void> addChassisDrives(Client& client, const Json& system,
                                      std::vector<std::string>& links) {
  const Json* systemLinks = member(system, "Links");
  if (!systemLinks) return {};
  for (const auto& chassisPath : memberLinks(*systemLinks, "Chassis")) {
    PROV_ASSIGN(auto chassis, ops::getResource(client, chassisPath));
    if (const Json* chassisLinks = member(chassis.body, "Links")) {
      appendNew(links, memberLinks(*chassisLinks, "Drives"));
    }
    if (auto collectionPath = odataLink(chassis.body, "Drives")) {
      PROV_ASSIGN(auto collection, ops::getResource(client, *collectionPath));
      appendNew(links, memberLinks(collection.body));
    }
  }
  return {};
}

// Every drive link of a system, each once: those of its Storage, then those its chassis link
// and Storage does not list (a DGX H100's AMI BMC leaves its StorageCollection without members
// and links the NVMe drives only from Chassis/DGX).
common::Result<std::vector<std::string>> systemDriveLinks(Client& client, const Json& system) {
  std::vector<std::string> links;
  PROV_TRY(addStorageDrives(client, system, links));
  PROV_TRY(addChassisDrives(client, system, links));
  return links;
}

}  // namespace

common::Result<std::vector<DriveInfo>> listDrives(Client& client, const std::string& systemPath,
                                                  const Quirks& /*quirks*/) {
  PROV_ASSIGN(auto system, ops::getResource(client, systemPath));
  PROV_ASSIGN(auto links, systemDriveLinks(client, system.body));
  std::vector<DriveInfo> drives;
  for (const auto& link : links) {
    PROV_ASSIGN(auto drive, ops::getResource(client, link));
    DriveInfo info = driveFrom(drive.body, link);
    if (const Json* action = at(drive.body, {"Actions", "#Drive.SecureErase"})) {
      PROV_ASSIGN(auto allowed, ops::allowableValues(client, *action, "SanitizationType"));
      if (allowed) info.sanitizationTypes = *allowed;
    }
    drives.push_back(std::move(info));
  }
  return drives;
}

SanitizationChoice chooseSanitization(const DriveInfo& drive) {
  struct Preference {
    const char* type;
    const char* level;
    const char* why;
  };
  static constexpr std::array<Preference, 3> kOrder{{
      {"CryptographicErase", "purge", "cryptographic erase destroys the media key (NIST purge)"},
      {"BlockErase", "purge", "block erase resets every block (NIST purge); no crypto erase"},
      {"Overwrite", "clear", "only overwrite is offered (NIST clear)"},
  }};
  const auto& offered = drive.sanitizationTypes;
  for (const auto& p : kOrder) {
    if (std::find(offered.begin(), offered.end(), p.type) != offered.end()) {
      return {std::string(p.type), p.level, p.why};
    }
  }
  if (!offered.empty()) {
    return {std::nullopt, "unknown",
            "none of the offered types (" + ops::joined(offered) + ") is known; BMC default"};
  }
  return {std::nullopt, "unknown", "the BMC lists no SanitizationType; its default erase"};
}

common::Result<std::optional<TaskRef>> secureEraseDrive(
    Client& client, const DriveInfo& drive, const std::optional<std::string>& sanitizationType) {
  PROV_ASSIGN(auto body, ops::getResource(client, drive.odataId));
  const Json* action = at(body.body, {"Actions", "#Drive.SecureErase"});
  auto target = action ? stringAt(*action, "target") : std::nullopt;
  if (!target) return ops::notSupported("drive " + drive.odataId + " offers no SecureErase");
  Json request = Json::object();
  if (sanitizationType && !drive.sanitizationTypes.empty()) {
    const auto& allowed = drive.sanitizationTypes;
    if (std::find(allowed.begin(), allowed.end(), *sanitizationType) == allowed.end()) {
      return ops::notAllowed("SanitizationType", *sanitizationType, allowed);
    }
    request["SanitizationType"] = *sanitizationType;
  }
  PROV_ASSIGN(auto response, ops::postJson(client, *target, request));
  return taskRefFrom(response);
}

}  // namespace redfish

// Drives for decommissioning: ComputerSystem -> Storage -> Drives with what #Drive.SecureErase
// offers, the choice of SanitizationType, and the erase itself (a task, followed by followTask).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "redfish/client.hpp"
#include "redfish/quirks.hpp"
#include "redfish/tasks.hpp"

namespace redfish {

struct DriveInfo {
  std::string odataId, serialNumber, model, manufacturer, mediaType, protocol;
  std::optional<std::int64_t> capacityBytes;
  bool secureEraseOffered = false;
  // SanitizationType allowable values (Drive v1.18+); empty: the BMC does not say.
  std::vector<std::string> sanitizationTypes;
};

// Every drive of the system, each once: those of its Storage and those its chassis link
// (Links.Drives or a Drives collection); a system with neither has no drives.
common::Result<std::vector<DriveInfo>> listDrives(Client& client, const std::string& systemPath,
                                                  const Quirks& quirks = {});

struct SanitizationChoice {
  std::optional<std::string> type;  // nullopt: send no SanitizationType (the BMC's default)
  std::string nistLevel;            // "purge" (crypto/block erase) or "clear" (overwrite)
  std::string reason;               // why this type, for the workflow's record
};

// CryptographicErase > BlockErase > Overwrite among the offered ones; none listed: no parameter.
SanitizationChoice chooseSanitization(const DriveInfo& drive);

// POSTs #Drive.SecureErase (SanitizationType only when the drive lists allowable values);
// bmc_not_supported when the action is not offered. Follow the task with followTask.
common::Result<std::optional<TaskRef>> secureEraseDrive(
    Client& client, const DriveInfo& drive, const std::optional<std::string>& sanitizationType);

}  // namespace redfish

// Decommissioning actions: Drive.SecureErase and Manager.ResetToDefaults.
#pragma once

#include <optional>
#include <string>

#include "common/result.hpp"
#include "redfish/client.hpp"
#include "redfish/tasks.hpp"

namespace redfish {

// POSTs the drive's #Drive.SecureErase; a task to follow when the BMC hands one back.
common::Result<std::optional<TaskRef>> secureEraseDrive(Client& client,
                                                        const std::string& drivePath);

// Manager.ResetToDefaults with `resetType` (default ResetAll) checked against its allowable
// values.
common::Result<void> resetManagerToDefaults(Client& client, const std::string& managerPath,
                                            const std::string& resetType = "ResetAll");

}  // namespace redfish

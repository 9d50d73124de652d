// The firmware a BMC reported, recorded in the inventory (node_firmware) where the inspect step
// crawls it and the firmware step re-reads it, so compliance reads what was last seen.
#pragma once

#include <string>
#include <vector>

#include "inventory/node_firmware.hpp"
#include "lifecycle_internal.hpp"
#include "redfish/inventory.hpp"
#include "workflows/firmware/component_rule.hpp"

namespace workflows::lifecycle {

std::vector<inventory::FirmwareObservation> observationsOf(const redfish::Inventory& inv);
std::vector<inventory::FirmwareObservation> observationsOf(
    const std::vector<firmware::FirmwareMember>& members);

// Best effort: a failed write is a timeline event ("firmware_record_failed"), never the step's
// failure (the next read records again).
void recordObserved(const Env& env, StepContext& ctx, inventory::Id node_id,
                    const std::vector<inventory::FirmwareObservation>& members);
void recordUnreachable(const Env& env, StepContext& ctx, inventory::Id node_id,
                       const std::string& reason);

}  // namespace workflows::lifecycle

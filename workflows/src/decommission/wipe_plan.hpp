// Which drives the BMC erases out of band and which the agent erases in band, decided from the
// BMC's Drive resources before the node boots (pure). A drive whose BMC offers #Drive.SecureErase
// and that has a serial (the agent skips drives by serial; the certificate names them by it) is
// erased out of band; every other drive is left to the agent.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "agent/wipe.hpp"
#include "redfish/drives.hpp"

namespace workflows::decommission {

struct PlannedDrive {
  redfish::DriveInfo drive;
  redfish::SanitizationChoice choice;  // out of band only
  bool out_of_band = false;
  std::string why;  // for the timeline: why this path
};

std::vector<PlannedDrive> planDrives(const std::vector<redfish::DriveInfo>& drives);

// data "wipe"."plan": {"oob": [...], "in_band": [...]} and back.
nlohmann::json planJson(const std::vector<PlannedDrive>& plan);
std::vector<PlannedDrive> planFromJson(const nlohmann::json& plan);

// The agent's plan: the decommission's seed, the sample coverage, the out-of-band drives skipped.
agent::WipePlan agentPlan(const std::vector<PlannedDrive>& plan, std::int64_t seed,
                          double drive_sample_coverage);

}  // namespace workflows::decommission

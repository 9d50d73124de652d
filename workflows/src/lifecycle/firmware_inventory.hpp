// What the firmware step reads from a BMC: the FirmwareInventory members (following @odata.id
// links and nextLink pages), one member's version, the update tasks still running, and the
// profile's minimum versions.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/result.hpp"
#include "redfish/client.hpp"
#include "redfish/tasks.hpp"
#include "workflows/firmware/component_rule.hpp"

namespace workflows::lifecycle {

using firmware::FirmwareMember;

struct MinimumFirmware {
  firmware::ComponentRule rule;  // min_firmware's "match": a pattern rule
  std::string version;
  std::string image_uri;
};

// The profile's min_firmware JSON. InvalidArgument "invalid_profile" naming the field
// ("min_firmware[1].image_uri").
common::Result<std::vector<MinimumFirmware>> parseMinimumFirmware(const std::string& text);

common::Result<std::vector<FirmwareMember>> readFirmwareInventory(redfish::Client& client);
common::Result<FirmwareMember> readFirmwareMember(redfish::Client& client, const std::string& path);

// The first unfinished task in the TaskService that updates `target` (it names the target, or
// it is an UpdateService action whose targets the BMC does not show); nullopt when none.
struct RunningTask {
  std::string uri;
  std::string state;
};
common::Result<std::optional<RunningTask>> findRunningUpdate(redfish::Client& client,
                                                             const std::string& target);

// Every task in the TaskService that names `target` exactly (its Payload or OEM targets), in any
// state: what a drive erase's resume compares with the tasks it saw before asking.
common::Result<std::vector<RunningTask>> tasksNaming(redfish::Client& client,
                                                     const std::string& target);

// An update task that failed before the BMC had the image (redfish::imageNotTransferred: the
// replica serving it was killed mid-download, the network dropped) is started again, at most
// this many times, before the step fails: nothing was written, so nothing is flashed twice.
inline constexpr int kMaxImageTransferRetries = 3;
// True when the failed task `result` is to be started again; counts it in `record`
// ("transfer_retries"), which the step persists with its outcome.
bool countTransferRetry(nlohmann::json& record, const redfish::TaskResult& result);

}  // namespace workflows::lifecycle

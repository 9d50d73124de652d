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

namespace workflows::lifecycle {

struct FirmwareMember {
  std::string path;  // @odata.id: what SimpleUpdate's Targets name
  std::string id, name, version;
  bool updateable = true;  // false only when the BMC says so
};

struct MinimumFirmware {
  std::string match;  // case-insensitive substring of the member's Id or Name
  std::string version;
  std::string image_uri;
};

// The profile's min_firmware JSON. InvalidArgument "invalid_profile" naming the field
// ("min_firmware[1].image_uri").
common::Result<std::vector<MinimumFirmware>> parseMinimumFirmware(const std::string& text);

bool matches(const MinimumFirmware& minimum, const FirmwareMember& member);

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

}  // namespace workflows::lifecycle

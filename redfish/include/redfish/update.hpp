// Firmware update: SimpleUpdate (the BMC pulls an image URI) or a push (multipart with
// UpdateParameters + UpdateFile streamed from disk; raw HttpPushUri where multipart is absent).
// Each returns the TaskRef to follow with tasks.hpp.
#pragma once

#include <string>
#include <vector>

#include "common/result.hpp"
#include "redfish/client.hpp"
#include "redfish/tasks.hpp"

namespace redfish {

struct SimpleUpdateRequest {
  std::string imageUri;
  std::string transferProtocol;      // e.g. "HTTPS"; empty: not sent
  std::vector<std::string> targets;  // FirmwareInventory @odata.ids; empty: not sent
  bool forceUpdate = false;          // sent as ForceUpdate: true (a downgrade, or the same version)
};

// Checks TransferProtocol and Targets against the action's allowable values (inline or
// ActionInfo) -> bmc_value_not_allowed; POSTs to the action target read from UpdateService.
common::Result<TaskRef> simpleUpdate(Client& client, const SimpleUpdateRequest& update);

struct PushUpdateRequest {
  std::string filePath;              // streamed from disk (multipart)
  std::vector<std::string> targets;  // empty: the BMC decides from the image
  std::string applyTime = "Immediate";
};

// MultipartHttpPushUri when present, else HttpPushUri (raw body; the file is read into memory,
// as the Client has no raw streaming), else bmc_not_supported.
common::Result<TaskRef> pushUpdate(Client& client, const PushUpdateRequest& update);

}  // namespace redfish

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
  std::string applyTime = "Immediate";  // @Redfish.OperationApplyTime of UpdateParameters
  bool forceUpdate = false;             // UpdateParameters.ForceUpdate: true (a downgrade)
  bool multipartOnly = false;           // never the raw HttpPushUri (which reads the whole file)
};

// MultipartHttpPushUri when present (multipart/form-data: an UpdateParameters JSON part with
// Targets, @Redfish.OperationApplyTime and ForceUpdate when set, and an UpdateFile part libcurl
// streams from the file), else HttpPushUri unless multipartOnly (raw body; the file is read into
// memory, as the Client has no raw streaming), else bmc_not_supported.
common::Result<TaskRef> pushUpdate(Client& client, const PushUpdateRequest& update);

// What the BMC's UpdateService offers (read from the service root's UpdateService link).
struct UpdateCapabilities {
  bool simpleUpdate = false;         // Actions/#UpdateService.SimpleUpdate
  std::string multipartHttpPushUri;  // "" when not advertised
  std::string httpPushUri;           // "" when not advertised
};
// bmc_not_supported when the service root links no UpdateService.
common::Result<UpdateCapabilities> updateCapabilities(Client& client);

}  // namespace redfish

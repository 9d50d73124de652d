#include "redfish/update.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "http_util.hpp"
#include "redfish/errors.hpp"

namespace redfish {
namespace {

common::Result<ops::Resource> updateService(Client& client) {
  PROV_ASSIGN(auto root, ops::getResource(client, "/redfish/v1"));
  auto path = odataLink(root.body, "UpdateService");
  if (!path) return ops::notSupported("the service root links no UpdateService");
  return ops::getResource(client, *path);
}

common::Result<void> checkAllowed(Client& client, const Json& action, std::string_view parameter,
                                  const std::vector<std::string>& wanted) {
  PROV_ASSIGN(auto allowed, ops::allowableValues(client, action, parameter));
  if (!allowed) return common::success();
  for (const auto& value : wanted) {
    if (std::find(allowed->begin(), allowed->end(), value) == allowed->end()) {
      return ops::notAllowed(parameter, value, *allowed);
    }
  }
  return common::success();
}

common::Result<TaskRef> taskFrom(const Response& response, std::string_view what) {
  if (auto ref = taskRefFrom(response)) return *ref;
  return malformedResponse(response.url, std::string(what) + " answered without a task monitor");
}

}  // namespace

common::Result<TaskRef> simpleUpdate(Client& client, const SimpleUpdateRequest& update) {
  PROV_ASSIGN(auto service, updateService(client));
  const Json* action = at(service.body, {"Actions", "#UpdateService.SimpleUpdate"});
  auto target = action ? stringAt(*action, "target") : std::nullopt;
  if (!target) return ops::notSupported("UpdateService has no SimpleUpdate action");
  Json body = {{"ImageURI", update.imageUri}};
  if (!update.transferProtocol.empty()) {
    PROV_TRY(checkAllowed(client, *action, "TransferProtocol", {update.transferProtocol}));
    body["TransferProtocol"] = update.transferProtocol;
  }
  if (!update.targets.empty()) {
    PROV_TRY(checkAllowed(client, *action, "Targets", update.targets));
    body["Targets"] = update.targets;
  }
  if (update.forceUpdate) body["ForceUpdate"] = true;
  PROV_ASSIGN(auto response, ops::postJson(client, *target, body));
  return taskFrom(response, "SimpleUpdate");
}

common::Result<TaskRef> pushUpdate(Client& client, const PushUpdateRequest& update) {
  std::error_code ignored;
  if (!std::filesystem::is_regular_file(update.filePath, ignored)) {
    return common::invalidArgument("firmware_file_missing",
                                   "firmware image " + update.filePath + " is not a file", "file");
  }
  PROV_ASSIGN(auto service, updateService(client));
  Request request;
  request.method = Method::kPost;
  if (auto multipart = stringAt(service.body, "MultipartHttpPushUri")) {
    Json parameters = {{"@Redfish.OperationApplyTime", update.applyTime}};
    if (!update.targets.empty()) parameters["Targets"] = update.targets;
    if (update.forceUpdate) parameters["ForceUpdate"] = true;
    request.target = *multipart;
    request.multipart.push_back(
        {"UpdateParameters", "application/json", parameters.dump(), {}, {}});
    request.multipart.push_back({"UpdateFile",
                                 "application/octet-stream",
                                 {},
                                 update.filePath,
                                 std::filesystem::path(update.filePath).filename().string()});
  } else if (update.multipartOnly) {
    return ops::notSupported("UpdateService advertises no MultipartHttpPushUri");
  } else if (auto raw = stringAt(service.body, "HttpPushUri")) {
    std::ifstream in(update.filePath, std::ios::binary);
    std::ostringstream content;
    content << in.rdbuf();
    request.target = *raw;
    request.body = content.str();
    request.headers.emplace_back("Content-Type", "application/octet-stream");
  } else {
    return ops::notSupported("UpdateService has neither MultipartHttpPushUri nor HttpPushUri");
  }
  PROV_ASSIGN(auto response, ops::expectSuccess(client.send(std::move(request)), "POST"));
  return taskFrom(response, "the firmware push");
}

common::Result<UpdateCapabilities> updateCapabilities(Client& client) {
  PROV_ASSIGN(auto service, updateService(client));
  UpdateCapabilities out;
  const Json* action = at(service.body, {"Actions", "#UpdateService.SimpleUpdate"});
  out.simpleUpdate = action != nullptr && stringAt(*action, "target").has_value();
  out.multipartHttpPushUri = stringAt(service.body, "MultipartHttpPushUri").value_or("");
  out.httpPushUri = stringAt(service.body, "HttpPushUri").value_or("");
  return out;
}

}  // namespace redfish

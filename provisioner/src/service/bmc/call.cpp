#include "call.hpp"

#include "redfish/errors.hpp"
#include "redfish/json.hpp"
#include "redfish/power.hpp"

namespace provisioner::service::bmc {

common::Result<nlohmann::json> getJson(redfish::Client& client, const std::string& path) {
  redfish::Request request;
  request.target = path;
  PROV_ASSIGN(auto response, client.send(std::move(request)));
  if (!response.isSuccess()) return common::fail(redfish::httpError("GET", response));
  return redfish::parseBody(response.body, response.url);
}

common::Result<redfish::Quirks> readQuirks(redfish::Client& client) {
  PROV_ASSIGN(auto root, getJson(client, "/redfish/v1"));
  return redfish::quirksForRoot(root);
}

common::Result<std::string> systemPath(redfish::Client& client, const ParsedFlags& flags) {
  if (auto chosen = flags.value("--system")) return *chosen;
  PROV_ASSIGN(auto root, getJson(client, "/redfish/v1"));
  auto systems = redfish::odataLink(root, "Systems");
  if (!systems)
    return redfish::malformedResponse("/redfish/v1", "the service root links no Systems");
  PROV_ASSIGN(auto collection, getJson(client, *systems));
  auto members = redfish::memberLinks(collection);
  if (members.empty()) return redfish::malformedResponse(*systems, "no systems");
  return members.front();
}

common::Result<std::string> chassisPath(redfish::Client& client, const ParsedFlags& flags) {
  if (auto chosen = flags.value("--chassis-path")) return *chosen;
  PROV_ASSIGN(auto system, systemPath(client, flags));
  return redfish::systemChassis(client, system);
}

common::Error notSupported(std::string message) {
  return common::Error{common::ErrorKind::kInvalidArgument,
                       std::string(redfish::codes::kNotSupported),
                       std::move(message),
                       {},
                       {}};
}

nlohmann::json taskJson(const redfish::TaskRef& task) {
  return {{"task_monitor", task.monitorUri}, {"task", task.taskUri}};
}

nlohmann::json taskResultJson(const redfish::TaskResult& result) {
  nlohmann::json percent = nullptr;
  if (result.percent) percent = *result.percent;
  return {{"state", result.state}, {"percent", percent}, {"messages", result.messages}};
}

int printJson(std::ostream& out, const nlohmann::json& document) {
  out << document.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  return kBmcExitDone;
}

int printError(std::ostream& err, const common::Error& error) {
  err << "error: " << error.message << " (" << error.code << ")\n";
  if (!error.detail.empty()) err << "detail: " << error.detail << "\n";
  return kBmcExitFailed;
}

int finish(BmcCall& call, const common::Result<nlohmann::json>& result) {
  return result ? printJson(call.out, *result) : printError(call.err, result.error());
}

}  // namespace provisioner::service::bmc

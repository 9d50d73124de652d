#include "firmware_inventory.hpp"

#include <algorithm>
#include <cctype>

#include "host_control.hpp"
#include "redfish/errors.hpp"
#include "redfish/json.hpp"

namespace workflows::lifecycle {
namespace {

using nlohmann::json;

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

common::Error badEntry(std::size_t index, const std::string& field, const std::string& what) {
  return common::invalidArgument(
      "invalid_profile",
      "the profile's min_firmware[" + std::to_string(index) + "]." + field + " " + what,
      "min_firmware[" + std::to_string(index) + "]." + field);
}

FirmwareMember memberOf(const json& body, const std::string& path) {
  FirmwareMember m;
  m.path = redfish::odataId(body).value_or(path);
  m.id = redfish::stringAt(body, "Id").value_or("");
  m.name = redfish::stringAt(body, "Name").value_or("");
  m.software_id = redfish::stringAt(body, "SoftwareId").value_or("");
  m.version = redfish::stringAt(body, "Version").value_or("");
  m.software_id = redfish::stringAt(body, "SoftwareId").value_or("");
  m.updateable = redfish::boolAt(body, "Updateable").value_or(true);
  return m;
}

// Every member of a collection, inline when the BMC expanded them, else one GET each.
common::Result<std::vector<json>> collectionMembers(redfish::Client& client,
                                                    const std::string& path) {
  std::vector<json> members;
  std::string page = path + "?$expand=.($levels=1)";
  for (int pages = 0; !page.empty() && pages < 100; ++pages) {
    auto fetched = getJson(client, page);
    if (!fetched && pages == 0) fetched = getJson(client, path);  // a BMC refusing $expand
    if (!fetched) return common::fail(std::move(fetched).error());
    json body = std::move(*fetched);
    const json* list = redfish::member(body, "Members");
    for (const json& item : list && list->is_array() ? *list : json::array()) {
      if (!item.is_object()) continue;
      if (item.size() > 1) {
        members.push_back(item);  // expanded
      } else if (auto link = redfish::odataId(item)) {
        PROV_ASSIGN(auto one, getJson(client, *link));
        members.push_back(std::move(one));
      }
    }
    page = redfish::stringAt(body, "Members@odata.nextLink").value_or("");
  }
  return members;
}

bool unfinished(const std::string& state) {
  static const std::vector<std::string> kOpen = {"New",      "Starting",  "Running", "Pending",
                                                 "Stopping", "Suspended", "Service"};
  return std::find(kOpen.begin(), kOpen.end(), state) != kOpen.end();
}

// The firmware targets a task names, wherever the BMC puts them.
std::vector<std::string> targetsOf(const json& task) {
  std::vector<std::string> targets;
  if (const json* payload = redfish::member(task, "Payload")) {
    if (auto uri = redfish::stringAt(*payload, "TargetUri")) targets.push_back(*uri);
  }
  if (const json* oem = redfish::member(task, "Oem"); oem && oem->is_object()) {
    for (const auto& vendor : oem->items()) {
      for (const auto& link : redfish::memberLinks(vendor.value(), "Targets"))
        targets.push_back(link);
    }
  }
  return targets;
}

bool updatesTarget(const json& task, const std::string& target) {
  const auto targets = targetsOf(task);
  bool namesFirmware = false;
  for (const auto& t : targets) {
    if (t == target) return true;
    if (lower(t).find("firmwareinventory") != std::string::npos) namesFirmware = true;
  }
  if (namesFirmware) return false;  // it names other components
  // An UpdateService action, or a task that only says it is an update: assume it is ours rather
  // than risk a second flash.
  const std::string text = lower(redfish::stringAt(task, "Name").value_or("") + " " +
                                 (targets.empty() ? std::string() : targets.front()));
  return text.find("updateservice") != std::string::npos ||
         text.find("firmware") != std::string::npos || text.find("update") != std::string::npos;
}

}  // namespace

common::Result<std::vector<MinimumFirmware>> parseMinimumFirmware(const std::string& text) {
  std::vector<MinimumFirmware> out;
  const json list = json::parse(text.empty() ? "[]" : text, nullptr, false);
  if (!list.is_array()) {
    return common::fail(common::invalidArgument(
        "invalid_profile", "the profile's min_firmware is not a list", "min_firmware"));
  }
  for (std::size_t i = 0; i < list.size(); ++i) {
    MinimumFirmware m;
    const json& entry = list[i];
    m.rule.pattern = redfish::stringAt(entry, "match").value_or("");
    m.version = redfish::stringAt(entry, "version").value_or("");
    m.image_uri = redfish::stringAt(entry, "image_uri").value_or("");
    if (m.rule.pattern.empty()) return common::fail(badEntry(i, "match", "is missing"));
    if (m.version.empty()) return common::fail(badEntry(i, "version", "is missing"));
    if (m.image_uri.empty()) return common::fail(badEntry(i, "image_uri", "is missing"));
    out.push_back(std::move(m));
  }
  return out;
}

common::Result<std::vector<FirmwareMember>> readFirmwareInventory(redfish::Client& client) {
  PROV_ASSIGN(auto root, getJson(client, "/redfish/v1"));
  auto updatePath = redfish::odataLink(root, "UpdateService");
  if (!updatePath) {
    return common::fail(redfish::malformedResponse("/redfish/v1", "no UpdateService link"));
  }
  PROV_ASSIGN(auto update, getJson(client, *updatePath));
  auto inventoryPath = redfish::odataLink(update, "FirmwareInventory");
  if (!inventoryPath) {
    return common::fail(redfish::malformedResponse(*updatePath, "no FirmwareInventory link"));
  }
  PROV_ASSIGN(auto bodies, collectionMembers(client, *inventoryPath));
  std::vector<FirmwareMember> members;
  for (const auto& body : bodies) members.push_back(memberOf(body, ""));
  return members;
}

common::Result<FirmwareMember> readFirmwareMember(redfish::Client& client,
                                                  const std::string& path) {
  PROV_ASSIGN(auto body, getJson(client, path));
  return memberOf(body, path);
}

namespace {

common::Result<std::vector<json>> listTaskService(redfish::Client& client) {
  PROV_ASSIGN(auto root, getJson(client, "/redfish/v1"));
  auto servicePath = redfish::odataLink(root, "Tasks");
  if (!servicePath) return std::vector<json>();  // no TaskService: nothing to find
  PROV_ASSIGN(auto service, getJson(client, *servicePath));
  auto tasksPath = redfish::odataLink(service, "Tasks");
  if (!tasksPath) return std::vector<json>();
  return collectionMembers(client, *tasksPath);
}

}  // namespace

common::Result<std::optional<RunningTask>> findRunningUpdate(redfish::Client& client,
                                                             const std::string& target) {
  PROV_ASSIGN(auto tasks, listTaskService(client));
  for (const auto& task : tasks) {
    const std::string state = redfish::stringAt(task, "TaskState").value_or("");
    if (!unfinished(state) || !updatesTarget(task, target)) continue;
    return std::optional<RunningTask>(RunningTask{redfish::odataId(task).value_or(""), state});
  }
  return std::optional<RunningTask>();
}

common::Result<std::vector<RunningTask>> tasksNaming(redfish::Client& client,
                                                     const std::string& target) {
  PROV_ASSIGN(auto tasks, listTaskService(client));
  std::vector<RunningTask> out;
  for (const auto& task : tasks) {
    const auto targets = targetsOf(task);
    if (std::find(targets.begin(), targets.end(), target) == targets.end()) continue;
    out.push_back(
        {redfish::odataId(task).value_or(""), redfish::stringAt(task, "TaskState").value_or("")});
  }
  return out;
}

bool countTransferRetry(nlohmann::json& record, const redfish::TaskResult& result) {
  if (!redfish::imageNotTransferred(result)) return false;
  const int done = record.value("transfer_retries", 0);
  if (done >= kMaxImageTransferRetries) return false;
  record["transfer_retries"] = done + 1;
  return true;
}

}  // namespace workflows::lifecycle

// Firmware updates (SimpleUpdate, multipart and plain HTTP push) and Drive.SecureErase run as
// tasks that progress with simulated time. A finished update changes the targeted
// FirmwareInventory versions; BIOS/UEFI images wait for the next host boot.
#include <algorithm>
#include <cctype>
#include <cmath>

#include "model/handlers.hpp"
#include "model/json_util.hpp"

namespace sim::model {
namespace {

constexpr double kFirstPercent = 5;          // what a task reports once accepted
constexpr double kVanishedAfterUpdate = 60;  // the BMC reboots after flashing itself

std::string tasksRoot(const ModelState& s) {
  auto root = s.behaviour().tasksPath;
  return root.empty() ? "/redfish/v1/TaskService/Tasks" : root;
}

std::string taskPath(const ModelState& s, const Task& task) {
  return tasksRoot(s) + "/" + task.id;
}

bool finishedAt(const Task& task, double now) {
  return !task.hung && now >= task.start + task.duration;
}

int percentOf(const Task& task, double now) {
  if (finishedAt(task, now)) return 100;
  if (task.hung) return static_cast<int>(kFirstPercent);
  double fraction = (now - task.start) / task.duration;
  return static_cast<int>(std::clamp(std::floor(fraction * 100), kFirstPercent, 99.0));
}

// "2.19.1" -> "2.19.2": the last run of digits goes up by one.
std::string bumpVersion(const std::string& version) {
  auto end = version.find_last_of("0123456789");
  if (end == std::string::npos) return version + ".1";
  auto begin = end;
  while (begin > 0 && std::isdigit(static_cast<unsigned char>(version[begin - 1]))) --begin;
  auto digits = version.substr(begin, end - begin + 1);
  auto bumped = std::to_string(std::stoull(digits.substr(0, 18)) + 1);
  return version.substr(0, begin) + bumped + version.substr(end + 1);
}

bool needsHostReset(const ModelState& s, const std::string& path) {
  const auto* body = s.profile->find(path);
  auto text = lower(path + " " + (body ? stringAt(*body, "Name") : std::string{}));
  return text.find("bios") != std::string::npos || text.find("uefi") != std::string::npos;
}

std::vector<std::string> inventory(const ModelState& s) {
  std::vector<std::string> out;
  const auto* collection = s.profile->find(s.behaviour().firmwareInventory);
  for (const auto& link : collection ? memberLinks(*collection) : std::vector<std::string>{}) {
    auto path = s.profile->canonicalPath(link);
    if (!path.empty()) out.push_back(path);
  }
  return out;
}

// Without Targets: the inventory entries named in the image file name, else the first updateable.
std::vector<std::string> defaultTargets(const ModelState& s, const std::string& image) {
  auto name = lower(
      image.substr(image.find_last_of('/') == std::string::npos ? 0 : image.find_last_of('/') + 1));
  std::vector<std::string> named;
  std::string firstUpdateable;
  for (const auto& path : inventory(s)) {
    const auto* body = s.profile->find(path);
    auto id = lower(body ? stringAt(*body, "Id") : std::string{});
    if (!name.empty() && id.size() >= 3 && name.find(id) != std::string::npos)
      named.push_back(path);
    const auto* updateable = body ? member(*body, "Updateable") : nullptr;
    if (firstUpdateable.empty() && updateable && *updateable == true) firstUpdateable = path;
  }
  if (named.empty() && !firstUpdateable.empty()) named.push_back(firstUpdateable);
  return named;
}

std::string requestedVersion(const nlohmann::json& parameters) {
  const auto* oem = member(parameters, "Oem");
  const auto* ours = oem ? member(*oem, "Simulator") : nullptr;
  return ours ? stringAt(*ours, "Version") : std::string{};
}

HttpResponse accepted(ModelState& s, Task task) {
  s.tasks.push_back(std::move(task));
  const auto& stored = s.tasks.back();
  auto path = taskPath(s, stored);
  auto body = renderTask(s, path);
  auto response = HttpResponse::json(202, body ? body->dump() : "{}");
  response.headers.emplace_back("Location", path + "/Monitor");
  return response;
}

HttpResponse startUpdate(ModelState& s, const nlohmann::json& parameters,
                         const std::string& image) {
  Task task;
  task.id = freshId(s, tasksRoot(s));
  task.start = s.now();
  task.duration = s.behaviour().firmwareTaskSeconds;
  task.hung = s.faults.hungTasks;
  task.version = requestedVersion(parameters);
  if (const auto* targets = member(parameters, "Targets")) {
    for (const auto& target : stringsAt(parameters, "Targets")) {
      auto path = s.profile->canonicalPath(target);
      if (path.empty()) {
        return redfishError(
            s, 400, "ActionParameterValueNotInList",
            "The value '" + target +
                "' for the parameter Targets in the action "
                "UpdateService.SimpleUpdate is not in the list of acceptable values.",
            {target, "Targets", "UpdateService.SimpleUpdate"}, "#/Targets");
      }
      task.targets.push_back(path);
    }
    if (!targets->is_array()) task.targets.clear();
  }
  if (task.targets.empty()) task.targets = defaultTargets(s, image);
  if (s.faults.vanishDuringFirmwareUpdate) {
    s.vanishedUntil = task.start + task.duration + kVanishedAfterUpdate;
  }
  return accepted(s, std::move(task));
}

// The JSON of the multipart part named UpdateParameters, or an empty object.
nlohmann::json updateParameters(const HttpRequest& request) {
  auto type = std::string(request.header("content-type"));
  auto at = type.find("boundary=");
  auto named = request.body.find("name=\"UpdateParameters\"");
  if (at == std::string::npos || named == std::string::npos) return nlohmann::json::object();
  auto boundary = "--" + type.substr(at + 9);
  if (boundary.size() > 2 && boundary.back() == '"') boundary.pop_back();
  std::erase(boundary, '"');
  boundary = "--" + boundary.substr(2);
  auto start = request.body.find("\r\n\r\n", named);
  if (start == std::string::npos) return nlohmann::json::object();
  start += 4;
  auto end = request.body.find(boundary, start);
  auto part =
      request.body.substr(start, end == std::string::npos ? std::string::npos : end - start);
  auto parsed = nlohmann::json::parse(part, nullptr, false);
  return parsed.is_object() ? parsed : nlohmann::json::object();
}

std::string originalVersion(const ModelState& s, const std::string& path) {
  if (auto it = s.firmware.find(path); it != s.firmware.end()) return it->second.version;
  const auto* body = s.profile->find(path);
  return body ? stringAt(*body, "Version") : std::string{};
}

void complete(ModelState& s, Task& task) {
  task.finished = true;
  if (task.kind != TaskKind::kFirmware) return;
  for (const auto& target : task.targets) {
    auto version = task.version.empty() ? bumpVersion(originalVersion(s, target)) : task.version;
    s.firmware[target] = FirmwareChange{version, needsHostReset(s, target)};
  }
}

}  // namespace

void advanceTasks(ModelState& s) {
  for (auto& task : s.tasks) {
    if (!task.finished && finishedAt(task, s.now())) complete(s, task);
  }
}

void applyFirmwareOnReset(ModelState& s) {
  for (auto& [path, change] : s.firmware) change.awaitingReset = false;
}

HttpResponse simpleUpdate(ModelState& s, const nlohmann::json& body) {
  auto image = stringAt(body, "ImageURI");
  if (image.empty()) {
    return redfishError(s, 400, "ActionParameterMissing",
                        "The action UpdateService.SimpleUpdate requires the parameter ImageURI to "
                        "be present in the request body.",
                        {"UpdateService.SimpleUpdate", "ImageURI"}, "#/ImageURI");
  }
  return startUpdate(s, body, image);
}

HttpResponse pushUpdate(ModelState& s, const HttpRequest& request, bool multipart) {
  if (request.body.empty()) {
    return redfishError(s, 400, "ActionParameterMissing",
                        "The firmware image is missing from the request body.",
                        {"UpdateService", "UpdateFile"});
  }
  auto parameters = multipart ? updateParameters(request) : nlohmann::json::object();
  return startUpdate(s, parameters, {});
}

HttpResponse secureErase(ModelState& s, const std::string& drive) {
  Task task;
  task.id = freshId(s, tasksRoot(s));
  task.kind = TaskKind::kSecureErase;
  task.start = s.now();
  task.duration = s.behaviour().secureEraseSeconds;
  task.hung = s.faults.hungTasks;
  task.targets = {drive};
  return accepted(s, std::move(task));
}

std::optional<nlohmann::json> renderTask(const ModelState& s, const std::string& path) {
  for (const auto& task : s.tasks) {
    auto own = taskPath(s, task);
    if (path != own && path != own + "/Monitor") continue;
    bool done = finishedAt(task, s.now());
    bool firmware = task.kind == TaskKind::kFirmware;
    nlohmann::json targets = nlohmann::json::array();
    for (const auto& target : task.targets) targets.push_back({{"@odata.id", target}});
    return nlohmann::json{
        {"@odata.id", own},
        {"@odata.type", "#Task.v1_4_3.Task"},
        {"Id", task.id},
        {"Name", firmware ? "Firmware Update" : "Drive Secure Erase"},
        {"TaskState", done ? "Completed" : "Running"},
        {"TaskStatus", "OK"},
        {"PercentComplete", percentOf(task, s.now())},
        {"TaskMonitor", own + "/Monitor"},
        {"Payload", {{"TargetUri", task.targets.empty() ? std::string{} : task.targets.front()}}},
        {"Messages", nlohmann::json::array(
                         {{{"MessageId", done ? "TaskEvent.1.0.3.TaskCompletedOK"
                                              : "TaskEvent.1.0.3.TaskStarted"},
                           {"Message", done ? "The task completed." : "The task started."}}})},
        {"Oem", {{"Simulator", {{"Targets", targets}}}}}};
  }
  return std::nullopt;
}

nlohmann::json taskSummaries(const ModelState& s) {
  auto out = nlohmann::json::array();
  for (const auto& task : s.tasks) {
    out.push_back({{"id", task.id},
                   {"kind", task.kind == TaskKind::kFirmware ? "firmware" : "secureErase"},
                   {"state", finishedAt(task, s.now()) ? "Completed" : "Running"},
                   {"percent", percentOf(task, s.now())},
                   {"targets", task.targets}});
  }
  return out;
}

}  // namespace sim::model

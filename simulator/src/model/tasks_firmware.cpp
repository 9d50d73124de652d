// Tasks (firmware updates, Drive.SecureErase) progress with simulated time. A finished update
// changes the targeted FirmwareInventory versions when its component applies it: at once, after
// the next host boot (BIOS/UEFI), after an AC/aux power cycle (HGX), or with a BMC restart (the
// BMC's own firmware). On Dell each firmware task is also a job (Oem/Dell/Jobs/JID_...).
#include <algorithm>
#include <cctype>
#include <cmath>

#include "model/handlers.hpp"
#include "model/json_util.hpp"

namespace sim::model {
namespace {

constexpr double kFirstPercent = 5;  // what a task reports once accepted
constexpr double kSecondsPerMinute = 60;

std::string tasksRoot(const ModelState& s) {
  auto root = s.behaviour().tasksPath;
  return root.empty() ? "/redfish/v1/TaskService/Tasks" : root;
}

std::string taskPath(const ModelState& s, const Task& task) {
  return tasksRoot(s) + "/" + task.id;
}

double endOf(const Task& task) {
  return task.start + task.duration;
}

bool finishedAt(const Task& task, double now) {
  return !task.hung && now >= endOf(task);
}

int percentOf(const Task& task, double now) {
  if (finishedAt(task, now)) return 100;
  if (task.hung) return static_cast<int>(kFirstPercent);
  double fraction = (now - task.start) / task.duration;
  return static_cast<int>(std::clamp(std::floor(fraction * 100), kFirstPercent, 99.0));
}

std::string stateOf(const Task& task, double now) {
  if (!finishedAt(task, now)) return "Running";
  return task.failure.empty() ? "Completed" : "Exception";
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

std::optional<FirmwareApply> applyOf(const ModelState& s, const std::string& path) {
  const auto& table = s.behaviour().firmwareApply;
  auto it = table.find(path);
  if (it == table.end()) {  // classified immediate, or outside the collection: BIOS by name
    const auto* body = s.profile->find(path);
    auto text = lower(path + " " + (body ? stringAt(*body, "Name") : std::string{}));
    bool bios = text.find("bios") != std::string::npos || text.find("uefi") != std::string::npos;
    return bios ? std::optional(FirmwareApply::kHostReset) : std::nullopt;
  }
  if (it->second == FirmwareApply::kImmediate || it->second == FirmwareApply::kBmcRestart) {
    return std::nullopt;  // a restarting BMC is unreachable until it shows the new version
  }
  return it->second;
}

bool restartsBmc(const ModelState& s, const std::string& path) {
  auto it = s.behaviour().firmwareApply.find(path);
  return it != s.behaviour().firmwareApply.end() && it->second == FirmwareApply::kBmcRestart;
}

void awayUntil(ModelState& s, double until) {
  s.vanishedUntil = std::max(s.vanishedUntil.value_or(until), until);
  s.sessions.clear();  // a BMC that rebooted knows no session
}

// The key a firmware task's records share: "<targets>@<version>".
std::string effectKey(const Task& task) {
  std::string key;
  for (const auto& target : task.targets) key += (key.empty() ? "" : ",") + target;
  if (task.kind == TaskKind::kFirmware) key += "@" + task.version;
  return key;
}

void complete(ModelState& s, Task& task) {
  task.finished = true;
  if (task.kind != TaskKind::kFirmware || !task.failure.empty()) return;
  const auto end = endOf(task);
  if (s.faults.awayAfterUpdateMinutes > 0) {
    awayUntil(s, end + s.faults.awayAfterUpdateMinutes * kSecondsPerMinute);
  }
  if (task.keepVersions) return;
  bool restart = false;
  for (const auto& target : task.targets) {
    auto version = task.version.empty() ? bumpVersion(installedVersion(s, target)) : task.version;
    s.firmware[target] = FirmwareChange{version, applyOf(s, target)};
    restart = restart || restartsBmc(s, target);
  }
  if (restart) awayUntil(s, end + s.faults.bmcRestartSeconds);
  // When the BMC has done with it (the image written, the BMC back from its restart): the end
  // of the window in which this update had the node out of service, from the BMC's side.
  recordSideEffect(s, "firmware_applied", effectKey(task),
                   restart ? end + s.faults.bmcRestartSeconds : end);
}

std::string targetNames(const ModelState& s, const Task& task) {
  std::string names;
  for (const auto& target : task.targets) {
    const auto* body = s.profile->find(target);
    auto name = body ? stringAt(*body, "Name") : std::string{};
    if (name.empty()) name = target.substr(target.rfind('/') + 1);
    names += (names.empty() ? "" : ", ") + name;
  }
  return names;
}

nlohmann::json taskMessage(const Task& task, double now) {
  auto state = stateOf(task, now);
  if (state == "Exception") {
    return {{"MessageId", "TaskEvent.1.0.3.TaskAborted"},
            {"Message", task.failure},
            {"MessageArgs", nlohmann::json::array({task.id})},
            {"Severity", "Critical"}};
  }
  bool done = state == "Completed";
  return {{"MessageId", done ? "TaskEvent.1.0.3.TaskCompletedOK" : "TaskEvent.1.0.3.TaskStarted"},
          {"Message", done ? "The task completed." : "The task started."},
          {"MessageArgs", nlohmann::json::array({task.id})},
          {"Severity", "OK"}};
}

// A download that failed also says so in the DMTF Base registry's words, as bmcweb does: what
// tells a client that nothing was written.
nlohmann::json taskMessages(const Task& task, double now) {
  auto messages = nlohmann::json::array({taskMessage(task, now)});
  if (task.imageUnreachable && stateOf(task, now) == "Exception") {
    messages.push_back(
        {{"MessageId", "Base.1.15.0.ResourceAtUriUnreachable"},
         {"Message", "The URI for the firmware image was not found or is unreachable."},
         {"Severity", "Critical"}});
  }
  return messages;
}

const Task* findTask(const ModelState& s, const std::string& id) {
  for (const auto& task : s.tasks) {
    if (task.id == id) return &task;
  }
  return nullptr;
}

bool dellJobs(const ModelState& s) {
  return !s.behaviour().dellJobsPath.empty();
}

}  // namespace

std::string installedVersion(const ModelState& s, const std::string& path) {
  if (auto it = s.firmware.find(path); it != s.firmware.end()) return it->second.version;
  const auto* body = s.profile->find(path);
  return body ? stringAt(*body, "Version") : std::string{};
}

std::string newTaskId(ModelState& s) {
  // iDRAC: a task is named after its job.
  if (dellJobs(s)) return "JID_" + std::to_string(900000000000LL + s.nextId++);
  return freshId(s, tasksRoot(s));
}

HttpResponse acceptTask(ModelState& s, Task task) {
  recordSideEffect(s, task.kind == TaskKind::kFirmware ? "firmware_update" : "secure_erase",
                   effectKey(task));
  s.tasks.push_back(std::move(task));
  const auto& stored = s.tasks.back();
  auto path = taskPath(s, stored);
  auto body = renderTask(s, path);
  auto response = HttpResponse::json(202, body ? body->dump() : "{}");
  response.headers.emplace_back("Location", path + "/Monitor");
  return response;
}

void advanceTasks(ModelState& s) {
  for (auto& task : s.tasks) {
    if (!task.finished && finishedAt(task, s.now())) complete(s, task);
  }
}

void applyFirmwareOnReset(ModelState& s) {
  for (auto& [path, change] : s.firmware) {
    if (change.awaiting == FirmwareApply::kHostReset) change.awaiting.reset();
  }
}

void applyFirmwareOnPowerCycle(ModelState& s) {
  for (auto& [path, change] : s.firmware) {
    if (change.awaiting == FirmwareApply::kPowerCycle) change.awaiting.reset();
  }
}

HttpResponse secureErase(ModelState& s, const std::string& drive) {
  Task task;
  task.id = freshId(s, tasksRoot(s));
  task.kind = TaskKind::kSecureErase;
  task.start = s.now();
  task.duration = s.behaviour().secureEraseSeconds;
  task.hung = s.faults.hungTasks || s.faults.driveEraseHangs;
  if (s.faults.driveEraseFails) task.failure = "The drive reported a sanitization failure.";
  task.targets = {drive};
  return acceptTask(s, std::move(task));
}

std::optional<nlohmann::json> renderTask(const ModelState& s, const std::string& path) {
  for (const auto& task : s.tasks) {
    auto own = taskPath(s, task);
    if (path != own && path != own + "/Monitor") continue;
    auto state = stateOf(task, s.now());
    bool firmware = task.kind == TaskKind::kFirmware;
    nlohmann::json targets = nlohmann::json::array();
    for (const auto& target : task.targets) targets.push_back({{"@odata.id", target}});
    return nlohmann::json{
        {"@odata.id", own},
        {"@odata.type", "#Task.v1_4_3.Task"},
        {"Id", task.id},
        {"Name", firmware ? "Firmware Update" : "Drive Secure Erase"},
        {"TaskState", state},
        {"TaskStatus", state == "Exception" ? "Critical" : "OK"},
        {"PercentComplete", percentOf(task, s.now())},
        {"TaskMonitor", own + "/Monitor"},
        {"Payload", {{"TargetUri", task.targets.empty() ? std::string{} : task.targets.front()}}},
        {"Messages", taskMessages(task, s.now())},
        {"Oem", {{"Simulator", {{"Targets", targets}}}}}};
  }
  return std::nullopt;
}

std::optional<nlohmann::json> renderFirmwareJob(const ModelState& s, const std::string& path) {
  const auto& jobs = s.behaviour().dellJobsPath;
  if (jobs.empty() || !path.starts_with(jobs + "/")) return std::nullopt;
  const Task* task = findTask(s, path.substr(jobs.size() + 1));
  if (task == nullptr || task->kind != TaskKind::kFirmware) return std::nullopt;
  auto state = stateOf(*task, s.now());
  bool failed = state == "Exception", done = state == "Completed";
  return nlohmann::json{{"@odata.id", path},
                        {"@odata.type", "#DellJob.v1_5_0.DellJob"},
                        {"Id", task->id},
                        {"JobType", "FirmwareUpdate"},
                        {"Name", "Firmware Update: " + targetNames(s, *task)},
                        {"JobState", failed ? "Failed"
                                     : done ? "Completed"
                                            : "Running"},
                        {"PercentComplete", percentOf(*task, s.now())},
                        {"MessageId", failed ? "RED007"
                                      : done ? "PR19"
                                             : "RED106"},
                        {"Message", failed ? task->failure
                                    : done ? "Job completed successfully."
                                           : "Package successfully downloaded."},
                        {"TargetSettingsURI", nullptr}};
}

std::vector<std::string> firmwareJobIds(const ModelState& s) {
  std::vector<std::string> ids;
  if (!dellJobs(s)) return ids;
  for (const auto& task : s.tasks) {
    if (task.kind == TaskKind::kFirmware) ids.push_back(task.id);
  }
  return ids;
}

nlohmann::json taskSummaries(const ModelState& s) {
  auto out = nlohmann::json::array();
  for (const auto& task : s.tasks) {
    nlohmann::json summary = {
        {"id", task.id},
        {"kind", task.kind == TaskKind::kFirmware ? "firmware" : "secureErase"},
        {"state", stateOf(task, s.now())},
        {"percent", percentOf(task, s.now())},
        {"targets", task.targets}};
    if (task.kind == TaskKind::kFirmware) {
      summary["version"] = task.version;
      summary["method"] = task.method;
    }
    if (!task.failure.empty()) summary["failure"] = task.failure;
    out.push_back(std::move(summary));
  }
  return out;
}

}  // namespace sim::model

// `bmc update` (UpdateService.SimpleUpdate through update.hpp; --wait follows the task with
// tasks.hpp) and `bmc tasks` (the TaskService's tasks, or one task's state).
#include <charconv>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "call.hpp"
#include "redfish/json.hpp"
#include "redfish/update.hpp"

namespace provisioner::service::bmc {
namespace {

constexpr std::int64_t kDefaultTimeoutSeconds = 3600;
constexpr std::int64_t kMaxTimeoutSeconds = 7 * 24 * 3600;
constexpr int kMaxTaskPages = 50;  // Members@odata.nextLink pages followed at most

bool isPath(const std::string& text) {
  return text.rfind("/", 0) == 0;
}

bool isPathOrUrl(const std::string& text) {
  return isPath(text) || text.rfind("https://", 0) == 0 || text.rfind("http://", 0) == 0;
}

std::optional<std::int64_t> seconds(const std::string& text) {
  std::int64_t value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  if (value < 1 || value > kMaxTimeoutSeconds) return std::nullopt;
  return value;
}

std::string checkUpdate(const ParsedFlags& flags) {
  if (!flags.has("--image-uri")) return "--image-uri is required";
  for (const auto& target : flags.all("--target")) {
    if (!isPath(target)) return "--target takes a FirmwareInventory path (/redfish/v1/...)";
  }
  if (auto timeout = flags.value("--timeout")) {
    if (!flags.has("--wait")) return "--timeout needs --wait";
    if (!seconds(*timeout)) return "--timeout takes whole seconds, 1 to 604800";
  }
  return {};
}

int runUpdate(BmcCall& call) {
  auto& client = *call.client;
  redfish::SimpleUpdateRequest request;
  request.imageUri = call.flags.value("--image-uri").value_or("");
  request.targets = call.flags.all("--target");
  request.forceUpdate = call.flags.has("--force");
  auto task = redfish::simpleUpdate(client, request);
  if (!task) return printError(call.err, task.error());
  nlohmann::json document = taskJson(*task);
  if (!call.flags.has("--wait")) return printJson(call.out, document);

  auto follow = call.options.follow;
  const auto timeout =
      seconds(call.flags.value("--timeout").value_or("")).value_or(kDefaultTimeoutSeconds);
  follow.timeout = std::chrono::seconds(timeout);
  auto result = redfish::followTask(client, *task, follow);
  if (result) {
    document.update(taskResultJson(*result));
    return printJson(call.out, document);
  }
  // Ended badly or still running at the deadline: print where it stands, then why.
  if (auto last = redfish::pollTaskOnce(client, *task)) {
    document.update(taskResultJson(last->result));
  }
  printJson(call.out, document);
  return printError(call.err, result.error());
}

std::string checkTasks(const ParsedFlags& flags) {
  auto task = flags.value("--task");
  if (task && !isPathOrUrl(*task)) return "--task takes a task path (/redfish/v1/...)";
  return {};
}

common::Result<nlohmann::json> taskState(redfish::Client& client, const std::string& path) {
  redfish::TaskRef ref;
  ref.taskUri = path;
  PROV_ASSIGN(auto poll, redfish::pollTaskOnce(client, ref));
  nlohmann::json entry = {{"task", path}};
  entry.update(taskResultJson(poll.result));
  entry["terminal"] = poll.terminal;
  return entry;
}

// The task links of the TaskService's collection, every page.
common::Result<std::vector<std::string>> taskLinks(redfish::Client& client) {
  PROV_ASSIGN(auto root, getJson(client, "/redfish/v1"));
  auto servicePath = redfish::odataLink(root, "Tasks");
  if (!servicePath) return notSupported("the service root links no TaskService");
  PROV_ASSIGN(auto service, getJson(client, *servicePath));
  auto page = redfish::odataLink(service, "Tasks");
  if (!page) return notSupported("the TaskService " + *servicePath + " links no Tasks");
  std::vector<std::string> links;
  for (int pages = 0; page && pages < kMaxTaskPages; ++pages) {
    PROV_ASSIGN(auto collection, getJson(client, *page));
    for (auto& link : redfish::memberLinks(collection)) links.push_back(std::move(link));
    page = redfish::stringAt(collection, "Members@odata.nextLink");
  }
  return links;
}

common::Result<nlohmann::json> tasks(redfish::Client& client, const ParsedFlags& flags) {
  if (auto one = flags.value("--task")) return taskState(client, *one);
  PROV_ASSIGN(auto links, taskLinks(client));
  nlohmann::json list = nlohmann::json::array();
  for (const auto& link : links) {
    auto entry = taskState(client, link);
    // One unreadable task (gone since the listing) does not hide the others.
    list.push_back(entry ? *entry
                         : nlohmann::json{{"task", link}, {"error", entry.error().message}});
  }
  return nlohmann::json{{"tasks", list}};
}

int runTasks(BmcCall& call) {
  return finish(call, tasks(*call.client, call.flags));
}

}  // namespace

const Subcommand& updateCommand() {
  static const Subcommand command{
      "update",
      "--image-uri URI [--target PATH]... [--force] [--wait [--timeout SECONDS]]",
      "SimpleUpdate: the BMC pulls URI (onto --target, paths\n"
      "from bmc firmware; --force: a downgrade or the same\n"
      "version); print the task; --wait: follow it to its end\n"
      "(default timeout 3600 s) and print its final state",
      {{"--image-uri", "--timeout"}, {"--target"}, {"--force", "--wait"}},
      checkUpdate,
      runUpdate};
  return command;
}

const Subcommand& tasksCommand() {
  static const Subcommand command{"tasks",
                                  "[--task PATH]",
                                  "list the BMC's tasks; --task: one task's state, percent\n"
                                  "and messages",
                                  {{"--task"}, {}, {}},
                                  checkTasks,
                                  runTasks};
  return command;
}

}  // namespace provisioner::service::bmc

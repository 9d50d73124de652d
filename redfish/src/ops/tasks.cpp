#include "redfish/tasks.hpp"

#include <charconv>
#include <thread>

#include "http_util.hpp"
#include "redfish/errors.hpp"

namespace redfish {
namespace {

bool isTerminal(const std::string& state) {
  return state == "Completed" || state == "Exception" || state == "Killed" ||
         state == "Cancelled" || state == "Interrupted" || state == "Suspended";
}

void readMessages(const Json& task, TaskResult& result) {
  const Json* list = member(task, "Messages");
  if (list == nullptr || !list->is_array()) return;
  for (const Json& entry : *list) {
    std::string id = stringAt(entry, "MessageId").value_or("");
    std::string text = stringAt(entry, "Message").value_or("");
    if (id.empty() && text.empty()) continue;
    if (!id.empty()) result.message_ids.push_back(id);
    result.messages.push_back(id.empty() ? text : text.empty() ? id : id + ": " + text);
  }
}

// "Base.1.15.0.ResourceAtUriUnreachable" -> "ResourceAtUriUnreachable".
std::string_view messageKey(std::string_view id) {
  const auto dot = id.rfind('.');
  return dot == std::string_view::npos ? id : id.substr(dot + 1);
}

std::optional<std::chrono::seconds> retryAfter(const Response& response) {
  std::string_view text = response.header("retry-after");
  long seconds = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), seconds);
  if (error != std::errc() || end == text.data() || seconds < 0) return std::nullopt;
  return std::chrono::seconds(std::min(seconds, 3600L));
}

}  // namespace

std::optional<TaskRef> taskRefFrom(const Response& response) {
  TaskRef ref;
  ref.monitorUri = ops::pathOf(response.header("location"));
  if (auto body = parseBody(response.body, response.url); body && body->is_object()) {
    if (member(*body, "TaskState") != nullptr) {
      ref.taskUri = odataId(*body).value_or("");
      // No Location header: the Task's own TaskMonitor (a multipart push may answer so).
      if (ref.monitorUri.empty())
        ref.monitorUri = ops::pathOf(stringAt(*body, "TaskMonitor").value_or(""));
    }
  }
  if (ref.monitorUri.empty() && ref.taskUri.empty()) return std::nullopt;
  return ref;
}

common::Result<TaskPoll> pollTaskOnce(Client& client, const TaskRef& task) {
  Request request;
  request.target = task.pollUri();
  PROV_ASSIGN(auto response, client.send(std::move(request)));
  if (!response.isSuccess()) return httpError("GET", response);
  TaskPoll poll;
  poll.retryAfter = retryAfter(response);
  auto body = parseBody(response.body, task.pollUri());
  const bool isTask = body && body->is_object() && member(*body, "TaskState") != nullptr;
  if (!isTask) {
    // A monitor answers 202 while running and the operation's result once done.
    if (response.status == 202) {
      poll.result.state = "Running";
      return poll;
    }
    poll.terminal = true;
    poll.result.state = "Completed";
    return poll;
  }
  poll.result.state = stringAt(*body, "TaskState").value_or("");
  poll.result.percent = intAt(*body, "PercentComplete");
  readMessages(*body, poll.result);
  poll.terminal = isTerminal(poll.result.state);
  return poll;
}

common::Result<TaskResult> taskOutcome(const TaskResult& result, const TaskRef& task) {
  if (result.state == "Completed") return result;
  std::string message = "BMC task " + task.pollUri() + " ended " + result.state;
  if (!result.messages.empty()) message += ": " + ops::joined(result.messages);
  return common::Error{common::ErrorKind::kProtocol,
                       std::string(codes::kTaskFailed),
                       std::move(message),
                       {},
                       ops::joined(result.messages)};
}

bool imageNotTransferred(const TaskResult& result) {
  if (result.state == "Completed") return false;
  for (const std::string& id : result.message_ids) {
    const auto key = messageKey(id);
    if (key == "ResourceAtUriUnreachable" || key == "TransferFailed") return true;
  }
  return false;
}

common::Result<TaskResult> followTask(Client& client, const TaskRef& task, FollowOptions options) {
  if (!options.now) options.now = [] { return std::chrono::steady_clock::now(); };
  if (!options.sleep)
    options.sleep = [](std::chrono::milliseconds d) { std::this_thread::sleep_for(d); };
  const auto deadline = options.now() + options.timeout;
  for (;;) {
    PROV_ASSIGN(auto poll, pollTaskOnce(client, task));
    if (poll.terminal) return taskOutcome(poll.result, task);
    auto wait = options.pollInterval;
    if (poll.retryAfter && *poll.retryAfter > wait) {
      wait = std::chrono::duration_cast<std::chrono::milliseconds>(*poll.retryAfter);
    }
    if (options.now() + wait > deadline) {
      return common::Error{
          common::ErrorKind::kTimeout,
          std::string(codes::kTimeout),
          "BMC task " + task.pollUri() + " still " + poll.result.state + " at the deadline",
          {},
          {}};
    }
    options.sleep(wait);
  }
}

}  // namespace redfish

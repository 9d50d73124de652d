// Task monitors: an action answered 202 Accepted + Location is followed until its TaskState is
// terminal. pollTaskOnce never waits (for workflow engines with persisted timers); followTask
// blocks with a deadline and an injectable clock/sleep.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "redfish/client.hpp"

namespace redfish {

// What an action handed back to follow: the task monitor (Location) and/or the Task resource.
struct TaskRef {
  std::string monitorUri;
  std::string taskUri;
  // Where to poll: the monitor when known, else the task.
  const std::string& pollUri() const { return monitorUri.empty() ? taskUri : monitorUri; }
};

struct TaskResult {
  std::string state;  // New, Running, Completed, Exception, Killed, Cancelled, ...
  std::optional<std::int64_t> percent;
  std::vector<std::string> messages;     // "MessageId: Message" of Task.Messages
  std::vector<std::string> message_ids;  // the MessageIds alone, for decisions
};

struct TaskPoll {
  bool terminal = false;
  TaskResult result;
  std::optional<std::chrono::seconds> retryAfter;  // the BMC's Retry-After, when given
};

// A TaskRef from an action's answer: Location header, else a Task body's @odata.id.
std::optional<TaskRef> taskRefFrom(const Response& response);

common::Result<TaskPoll> pollTaskOnce(Client& client, const TaskRef& task);

// Completed -> the result; Exception/Killed/Cancelled -> bmc_task_failed with the messages.
common::Result<TaskResult> taskOutcome(const TaskResult& result, const TaskRef& task);

// A failed update task in which the BMC wrote nothing because it never had the image: it could
// not fetch the ImageURI (DMTF Base registry ResourceAtUriUnreachable) or not transfer the image
// to the component (Update registry TransferFailed). Starting such an update again cannot flash
// twice; any other failure might have written part of the image.
bool imageNotTransferred(const TaskResult& result);

struct FollowOptions {
  std::chrono::milliseconds pollInterval{std::chrono::seconds(5)};
  std::chrono::milliseconds timeout{std::chrono::minutes(60)};
  std::function<std::chrono::steady_clock::time_point()> now;  // default steady_clock::now
  std::function<void(std::chrono::milliseconds)> sleep;        // default this_thread::sleep_for
};

// Polls until terminal; waits max(pollInterval, Retry-After) between polls; bmc_timeout past
// the deadline.
common::Result<TaskResult> followTask(Client& client, const TaskRef& task,
                                      FollowOptions options = {});

}  // namespace redfish

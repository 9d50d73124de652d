// firmware: every FirmwareInventory member below the profile's minimum is updated, one at a
// time, with SimpleUpdate. Flashing must never happen twice, so the intent is persisted first
// and a resumed run looks at the world (the version, the TaskService) before starting anything.
//
//   data "firmware": {"target", "name", "from", "to", "image_uri", "intent_at"}   planned
//                    + {"task": {"monitor", "task"}, "started_at"}                 update running
//                    + {"completed_at"} [+ {"reset_at"}]                           verifying
//                    "updated": [{"target", "name", "from", "to", "at"}]           done ones
#include <algorithm>
#include <set>

#include "firmware_inventory.hpp"
#include "firmware_record.hpp"
#include "host_control.hpp"
#include "redfish/errors.hpp"
#include "redfish/json.hpp"
#include "redfish/tasks.hpp"
#include "redfish/update.hpp"
#include "version_compare.hpp"

namespace workflows::lifecycle {
namespace {

using nlohmann::json;

json& record(StepContext& ctx) {
  json& fw = ctx.data()["firmware"];
  if (!fw.is_object()) fw = json::object();
  return fw;
}

bool has(const json& fw, const char* key) {
  return fw.contains(key) && !fw[key].is_null();
}
std::string text(const json& fw, const char* key) {
  return redfish::stringAt(fw, key).value_or("");
}

void clearCurrent(json& fw) {
  for (const char* key :
       {"target", "name", "from", "to", "image_uri", "intent_at", "task", "started_at",
        "completed_at", "reset_intent_at", "reset_at", "transfer_retries"}) {
    fw.erase(key);
  }
}

std::string describe(const json& fw) {
  return text(fw, "name") + " " + text(fw, "from") + " -> " + text(fw, "to");
}

StepOutcome waitPoll(const Env& env, const StepContext& ctx, TimePoint deadline,
                     std::string waiting_for, std::string message) {
  const auto next = std::min(env.after(ctx.now(), env.settings.timings.poll), deadline);
  return StepOutcome::waitUntil(next, std::move(waiting_for), std::move(message));
}

StepOutcome plan(const Env& env, StepContext& ctx, redfish::Client& client,
                 const std::vector<MinimumFirmware>& minimums) {
  auto members = readFirmwareInventory(client);
  const auto node_id = runNode(ctx);
  if (!members) {
    if (node_id) recordUnreachable(env, ctx, *node_id, members.error().message);
    return bmcTrouble("reading the firmware inventory", members.error());
  }
  // Every read, also the re-read after an update, is what compliance sees next.
  if (node_id) recordObserved(env, ctx, *node_id, observationsOf(*members));
  json& fw = record(ctx);
  std::set<std::string> updated;
  for (const auto& done : fw.value("updated", json::array())) updated.insert(text(done, "target"));
  for (const auto& minimum : minimums) {
    for (const auto& member : *members) {
      if (!firmware::matches(minimum.rule, member) || !member.updateable ||
          updated.count(member.path) != 0 || !versionBelow(member.version, minimum.version)) {
        continue;
      }
      fw["target"] = member.path;
      fw["name"] = member.name.empty() ? member.id : member.name;
      fw["from"] = member.version;
      fw["to"] = minimum.version;
      fw["image_uri"] = minimum.image_uri;
      fw["intent_at"] = isoTime(ctx.current());
      if (!fw.value("entered", false)) {
        enterState(env, ctx, "firmware", "firmware below the profile's minimum");
        fw["entered"] = true;
      }
      ctx.event("firmware_update_planned",
                describe(fw) + " (below the minimum): update from " + minimum.image_uri,
                {{"target", member.path}, {"from", member.version}, {"to", minimum.version}});
      // The intent is persisted with this outcome; the update starts on the next run.
      return StepOutcome::waitUntil(ctx.now(), "firmware_update", "planned " + describe(fw));
    }
  }
  fw["checked_at"] = isoTime(ctx.current());
  return StepOutcome::next("imaging", "firmware at or above the profile's minimum");
}

void markUpdated(StepContext& ctx, const std::string& version) {
  json& fw = record(ctx);
  json done = {{"target", fw["target"]},
               {"name", fw["name"]},
               {"from", fw["from"]},
               {"to", version},
               {"at", isoTime(ctx.current())}};
  if (!fw.contains("updated") || !fw["updated"].is_array()) fw["updated"] = json::array();
  fw["updated"].push_back(done);
  ctx.event("firmware_updated", text(fw, "name") + " now " + version, done);
  clearCurrent(fw);
}

// The intent is recorded and no task is: either this is the first try or a run resumed after a
// crash. The world decides: already updated, an update already running, or start one.
StepOutcome startUpdate(const Env& env, StepContext& ctx, redfish::Client& client,
                        const std::vector<MinimumFirmware>& minimums) {
  json& fw = record(ctx);
  const std::string target = text(fw, "target");
  auto member = readFirmwareMember(client, target);
  if (!member) return bmcTrouble("reading " + target, member.error());
  if (!versionBelow(member->version, text(fw, "to"))) {
    markUpdated(ctx, member->version);
    return plan(env, ctx, client, minimums);
  }
  auto running = findRunningUpdate(client, target);
  if (!running) return bmcTrouble("reading the TaskService", running.error());
  const auto deadline = env.after(ctx.now(), env.settings.timings.firmware_timeout);
  if (*running) {
    fw["task"] = {{"task", (*running)->uri}};
    fw["started_at"] = isoTime(ctx.current());
    ctx.event("firmware_update_adopted",
              "an update of " + text(fw, "name") + " is already running: " + (*running)->uri);
    return waitPoll(env, ctx, deadline, "firmware_task", "following " + (*running)->uri);
  }
  redfish::SimpleUpdateRequest request;
  request.imageUri = text(fw, "image_uri");
  request.targets = {target};
  auto task = redfish::simpleUpdate(client, request);
  if (!task && task.error().kind == common::ErrorKind::kInvalidArgument) {
    return StepOutcome::fail(
        "firmware_update_refused",
        "the BMC refused the update of " + describe(fw) + ": " + task.error().message,
        {{"target", target}, {"messages", task.error().detail}});
  }
  if (!task) return bmcTrouble("starting the update of " + text(fw, "name"), task.error());
  fw["task"] = {{"monitor", task->monitorUri}, {"task", task->taskUri}};
  fw["started_at"] = isoTime(ctx.current());
  ctx.event("firmware_update_started", "updating " + describe(fw),
            {{"target", target}, {"task", task->pollUri()}, {"image_uri", request.imageUri}});
  return waitPoll(env, ctx, deadline, "firmware_task", "updating " + describe(fw));
}

// A failed or timed-out update leaves the intent: an operator's retry looks at the world again.
StepOutcome updateFailed(StepContext& ctx, std::string reason, std::string message) {
  json& fw = record(ctx);
  json detail = {{"target", fw["target"]},
                 {"from", fw["from"]},
                 {"to", fw["to"]},
                 {"task", fw.value("task", json::object())}};
  fw.erase("task");
  fw.erase("started_at");
  fw.erase("completed_at");
  fw.erase("reset_at");
  return StepOutcome::fail(std::move(reason), std::move(message), std::move(detail));
}

StepOutcome verifyUpdate(const Env& env, StepContext& ctx, redfish::Client& client,
                         const std::vector<MinimumFirmware>& minimums);

// The BMC never had the image: the intent stays and the task goes, so the next run starts the
// update again after looking at the world (startUpdate).
StepOutcome retryTransfer(const Env& env, StepContext& ctx, const redfish::TaskResult& result) {
  json& fw = record(ctx);
  const int attempt = fw.value("transfer_retries", 0);
  fw.erase("task");
  fw.erase("started_at");
  ctx.event("firmware_transfer_retried",
            "the BMC could not fetch the image for " + describe(fw) + "; starting it again (" +
                std::to_string(attempt) + " of " + std::to_string(kMaxImageTransferRetries) + ")",
            {{"target", fw["target"]}, {"messages", result.messages}});
  return StepOutcome::waitUntil(env.after(ctx.now(), env.settings.timings.poll), "firmware_update",
                                "image transfer failed; retrying " + describe(fw));
}

StepOutcome pollTask(const Env& env, StepContext& ctx, redfish::Client* client,
                     const std::vector<MinimumFirmware>& minimums) {
  json& fw = record(ctx);
  const auto deadline = env.after(timeAt(fw, "started_at").value_or(ctx.now()),
                                  env.settings.timings.firmware_timeout);
  redfish::TaskRef ref{text(fw["task"], "monitor"), text(fw["task"], "task")};
  common::Result<redfish::TaskPoll> poll = common::internalError("no BMC client");
  if (client != nullptr) poll = redfish::pollTaskOnce(*client, ref);
  const bool done = poll && poll->terminal;
  if (!done && ctx.now() >= deadline) {
    std::string state = poll ? poll->result.state : "no answer from the BMC";
    if (poll && poll->result.percent) state += " at " + std::to_string(*poll->result.percent) + "%";
    return updateFailed(
        ctx, "firmware_update_timeout",
        "the update of " + describe(fw) + " did not finish in time (" + state + ")");
  }
  if (!done) {
    // Running, or a BMC that went away to flash itself: look again until the deadline.
    return waitPoll(env, ctx, deadline, "firmware_task",
                    poll ? "update " + poll->result.state
                         : "BMC not answering during the update: " + poll.error().message);
  }
  auto outcome = redfish::taskOutcome(poll->result, ref);
  if (!outcome && countTransferRetry(fw, poll->result))
    return retryTransfer(env, ctx, poll->result);
  if (!outcome) {
    std::string messages;
    for (const auto& m : poll->result.messages) messages += (messages.empty() ? "" : "; ") + m;
    return updateFailed(ctx, "firmware_update_failed",
                        "the update of " + describe(fw) + " ended " + poll->result.state +
                            (messages.empty() ? "" : ": " + messages));
  }
  fw.erase("task");
  fw["completed_at"] = isoTime(ctx.current());
  return verifyUpdate(env, ctx, *client, minimums);
}

StepOutcome verifyUpdate(const Env& env, StepContext& ctx, redfish::Client& client,
                         const std::vector<MinimumFirmware>& minimums) {
  json& fw = record(ctx);
  const auto since =
      timeAt(fw, "reset_at").value_or(timeAt(fw, "completed_at").value_or(ctx.now()));
  const auto deadline = env.after(since, env.settings.timings.firmware_timeout);
  auto member = readFirmwareMember(client, text(fw, "target"));
  if (member && !versionBelow(member->version, text(fw, "to"))) {
    markUpdated(ctx, member->version);
    return plan(env, ctx, client, minimums);
  }
  if (member && member->version != text(fw, "from")) {
    return updateFailed(ctx, "firmware_below_minimum",
                        text(fw, "name") + " is " + member->version +
                            " after the update, still below the minimum " + text(fw, "to"));
  }
  if (member && !has(fw, "reset_at") && has(fw, "reset_intent_at")) {
    // A replica died around this reset. Firmware applied at boot may flash for many minutes
    // during POST, where a second reset could brick the part: assume the reset was sent and
    // verify until the deadline (the rare kill between the intent and the call ends
    // firmware_not_applied, for an operator's retry, rather than risking that).
    fw["reset_at"] = fw["reset_intent_at"];
    return waitPoll(env, ctx, deadline, "firmware_applied", "waiting for " + describe(fw));
  }
  if (member && !has(fw, "reset_at")) {
    // Unchanged after a completed task: the BMC applies this one when the host boots.
    auto quirks = quirksOf(client, ctx);
    if (!quirks) return bmcTrouble("reading the service root", quirks.error());
    fw["reset_intent_at"] = isoTime(ctx.current());
    if (!ctx.recordIntent()) return leaseLost("resetting the host to apply firmware");
    auto reset = bootHost(client, systemPathOf(ctx), *quirks);
    if (!reset) {
      // Refused: the next try resets. Perhaps sent (a time-out): counted as sent, as above.
      if (redfish::certainlyNotActed(reset.error())) fw.erase("reset_intent_at");
      return bmcTrouble("resetting the host to apply firmware", reset.error());
    }
    fw["reset_at"] = isoTime(ctx.current());
    return StepOutcome::waitUntil(env.after(ctx.now(), std::min(env.settings.timings.power_settle,
                                                                env.settings.timings.poll)),
                                  "firmware_applied", "host reset to apply " + describe(fw));
  }
  if (ctx.now() < deadline) {
    return waitPoll(env, ctx, deadline, "firmware_applied", "waiting for " + describe(fw));
  }
  return updateFailed(ctx, "firmware_not_applied",
                      text(fw, "name") + " still reports " +
                          (member ? member->version : std::string("nothing")) +
                          " after the update and a reset (minimum " + text(fw, "to") + ")");
}

}  // namespace

StepOutcome firmwareStep(const Env& env, StepContext& ctx) {
  auto profile = profileOf(env, ctx);
  if (!profile) return StepOutcome::retry("inventory_error", profile.error().message);
  auto minimums = parseMinimumFirmware(*profile ? (*profile)->min_firmware_json : "[]");
  if (!minimums) {
    return StepOutcome::fail("invalid_profile", minimums.error().message,
                             {{"field", minimums.error().field}});
  }
  if (minimums->empty()) return StepOutcome::next("imaging", "no firmware minimum in the profile");
  json& fw = record(ctx);
  auto client = env.bmc(ctx);
  if (has(fw, "task")) return pollTask(env, ctx, client ? client->get() : nullptr, *minimums);
  if (!client) return bmcTrouble("connecting to the BMC", client.error());
  if (has(fw, "completed_at")) return verifyUpdate(env, ctx, **client, *minimums);
  if (has(fw, "target")) return startUpdate(env, ctx, **client, *minimums);
  return plan(env, ctx, **client, *minimums);
}

}  // namespace workflows::lifecycle

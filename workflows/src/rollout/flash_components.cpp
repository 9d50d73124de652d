#include "flash_components.hpp"

#include "../lifecycle/host_control.hpp"
#include "images/artifact_store.hpp"
#include "inventory/node_firmware.hpp"
#include "redfish/errors.hpp"
#include "redfish/json.hpp"
#include "redfish/power.hpp"
#include "redfish/tasks.hpp"
#include "redfish/update.hpp"
#include "workflows/firmware/package_uri.hpp"

namespace workflows::rollout {
namespace {

using lifecycle::isoTime;
using lifecycle::timeAt;
using nlohmann::json;

std::string text(const json& object, const char* key) {
  return redfish::stringAt(object, key).value_or("");
}

std::string describe(const ComponentUpdate& c) {
  return c.component + " " + (c.from.empty() ? "?" : c.from) + " -> " + c.to;
}

std::string joined(const std::vector<std::string>& parts) {
  std::string out;
  for (const auto& part : parts) out += (out.empty() ? "" : ", ") + part;
  return out;
}

json evidence(const ComponentUpdate& c, const json& current) {
  return {{"component", c.component},
          {"from", c.from},
          {"to", c.to},
          {"method", current.value("method", "simple_update")},
          {"targets", current.value("targets", json::array())},
          {"task", current.value("task", json::object())}};
}

// One component's machine; `current` is data[key]["current"].
class ComponentFlash {
 public:
  ComponentFlash(const Env& env, StepContext& ctx, const ComponentUpdate& c, json& current)
      : env_(env), ctx_(ctx), c_(c), cur_(current) {}

  // nullopt: the component is done (verified).
  std::optional<StepOutcome> advance(redfish::Client& client) {
    if (!cur_.contains("intent_at")) return plan(client);
    if (cur_.contains("task")) return poll(client);
    if (!cur_.contains("completed_at")) return start(client);
    if (!cur_.contains("applied_at")) return apply(client);
    return verify(client);
  }

  // The BMC cannot be reached: fatal only once the phase's deadline passed.
  StepOutcome unreachable(const common::Error& error) {
    const auto since =
        timeAt(cur_, "applied_at")
            .value_or(timeAt(cur_, "completed_at")
                          .value_or(timeAt(cur_, "started_at").value_or(ctx_.now())));
    const auto deadline = env_.after(since, env_.settings.timings.bmc_return_timeout);
    if (cur_.contains("intent_at") && ctx_.now() < deadline) {
      return pollUntil(
          env_, ctx_, env_.life.settings.timings.poll, deadline, "bmc_return",
          "BMC not answering during the update of " + c_.component + ": " + error.message);
    }
    return StepOutcome::fail(
        "bmc_unreachable",
        "the BMC did not come back during the update of " + describe(c_) + ": " + error.message,
        evidence(c_, cur_));
  }

 private:
  std::optional<StepOutcome> plan(redfish::Client& client) {
    auto members = lifecycle::readFirmwareInventory(client);
    if (!members) return unreachableOrRetry(members.error(), "reading the firmware inventory");
    const MemberCheck check = checkMembers(c_, *members);
    if (check.covered.empty()) {
      return StepOutcome::fail(
          "component_not_found",
          "no FirmwareInventory member matches the " + c_.component + " rule " + c_.rule.dump(),
          {{"component", c_.component}, {"rule", c_.rule}});
    }
    if (check.pending.empty()) return std::nullopt;  // already there: nothing to flash
    if (!check.below_min_from.empty()) {
      return StepOutcome::fail("below_min_from_version",
                               describe(c_) + " installs only over " + c_.min_from +
                                   " or later; installed: " + joined(check.below_min_from),
                               {{"component", c_.component},
                                {"min_from_version", c_.min_from},
                                {"members", check.below_min_from}});
    }
    if (auto refused = chooseMethod(client)) return refused;
    cur_["targets"] = check.pending;
    cur_["intent_at"] = isoTime(ctx_.current());
    ctx_.event(
        "firmware_update_intent",
        "updating " + describe(c_) + " on " + std::to_string(check.pending.size()) + " member(s)",
        evidence(c_, cur_));
    // Recorded before the BMC is asked: a replica that resumes this run sees the intent and
    // looks at the world instead of flashing blind; one that lost its lease does not act.
    if (!ctx_.recordIntent()) {
      return StepOutcome::retry("lease_lost", "the run's lease moved on; not flashing");
    }
    return start(client);
  }

  // How this BMC gets the package (cur_["method"], decided once, before the intent): a
  // multipart_push package is pushed where the UpdateService advertises MultipartHttpPushUri,
  // else goes by SimpleUpdate only when the package allows it. The pushed file's digest is
  // checked here too, so a damaged file fails before anything is recorded.
  std::optional<StepOutcome> chooseMethod(redfish::Client& client) {
    bool push = false;
    bool simple = true;
    if (c_.install.method == "multipart_push") {
      auto caps = redfish::updateCapabilities(client);
      if (!caps) return lifecycle::bmcTrouble("reading the UpdateService", caps.error());
      push = !caps->multipartHttpPushUri.empty();
      simple = caps->simpleUpdate;
    }
    const MethodChoice choice = chooseInstallMethod(c_.install, push, simple);
    if (!choice.failure.empty()) {
      return StepOutcome::fail("multipart_push_unsupported",
                               "cannot update " + describe(c_) + ": " + choice.failure,
                               {{"component", c_.component},
                                {"install_method", c_.install.method},
                                {"simple_update_fallback", c_.install.simple_update_fallback}});
    }
    if (choice.method == "multipart_push") {
      auto file = packageFile();
      if (!file) return invalidFile(file.error());
    }
    cur_["method"] = choice.method;
    if (choice.fallback) {
      cur_["method_fallback"] = true;
      ctx_.event("firmware_method_fallback",
                 "the BMC advertises no MultipartHttpPushUri: " + describe(c_) +
                     " goes by SimpleUpdate (the package allows it)",
                 {{"component", c_.component}, {"method", choice.method}});
    }
    return std::nullopt;
  }

  // The stored file of a multipart_push package, its digest (and size) checked again.
  common::Result<std::filesystem::path> packageFile() const {
    if (!env_.settings.artifacts) {
      return common::fail(common::unavailable(
          "multipart_push_unavailable", "this replica has no artifact store to push files from"));
    }
    return firmware::verifiedPackageFile(*env_.settings.artifacts, c_.install.sha256,
                                         c_.install.size);
  }

  StepOutcome invalidFile(const common::Error& error) const {
    return StepOutcome::fail(
        "package_file_invalid",
        "the package file of " + describe(c_) + " cannot be pushed: " + error.message,
        {{"component", c_.component}, {"sha256", c_.install.sha256}, {"code", error.code}});
  }

  common::Result<redfish::TaskRef> startUpdate(redfish::Client& client, const std::string& method,
                                               const std::vector<std::string>& targets,
                                               std::optional<StepOutcome>& refused) {
    if (method == "multipart_push") {
      auto file = packageFile();
      if (!file) {
        refused = invalidFile(file.error());
        return common::fail(file.error());
      }
      redfish::PushUpdateRequest request;
      request.filePath = file->string();
      request.targets = targets;
      request.forceUpdate = c_.force;
      request.multipartOnly = true;
      return redfish::pushUpdate(client, request);
    }
    redfish::SimpleUpdateRequest request;
    request.imageUri = c_.image_uri;
    request.targets = targets;
    request.forceUpdate = c_.force;
    return redfish::simpleUpdate(client, request);
  }

  std::optional<StepOutcome> start(redfish::Client& client) {
    std::vector<std::string> targets = cur_.value("targets", std::vector<std::string>{});
    auto members = lifecycle::readFirmwareInventory(client);
    if (!members) return unreachableOrRetry(members.error(), "reading the firmware inventory");
    if (checkMembers(c_, *members).pending.empty()) {
      // Flashed before a crash lost the outcome: verify, never flash again.
      cur_["completed_at"] = isoTime(ctx_.current());
      cur_["applied_at"] = isoTime(ctx_.current());
      return verify(client);
    }
    auto running = lifecycle::findRunningUpdate(client, targets.front());
    if (!running) return unreachableOrRetry(running.error(), "reading the TaskService");
    if (*running) {
      cur_["task"] = {{"task", (*running)->uri}};
      cur_["started_at"] = isoTime(ctx_.current());
      ctx_.event("firmware_update_adopted",
                 "an update of " + c_.component + " is already running: " + (*running)->uri);
      return waitTask("following " + (*running)->uri);
    }
    const std::string method = cur_.value("method", "simple_update");
    std::optional<StepOutcome> refused;
    auto task = startUpdate(client, method, targets, refused);
    if (refused) return refused;
    if (!task && task.error().kind == common::ErrorKind::kInvalidArgument) {
      return StepOutcome::fail(
          "firmware_update_refused",
          "the BMC refused the update of " + describe(c_) + ": " + task.error().message,
          {{"component", c_.component}, {"messages", task.error().detail}});
    }
    if (!task) return lifecycle::bmcTrouble("starting the update of " + c_.component, task.error());
    cur_["task"] = {{"monitor", task->monitorUri}, {"task", task->taskUri}};
    cur_["started_at"] = isoTime(ctx_.current());
    json started = {{"component", c_.component}, {"task", task->pollUri()}, {"method", method}};
    if (method == "multipart_push") {
      started["sha256"] = c_.install.sha256;
    } else {
      started["image_uri"] = c_.image_uri;
    }
    ctx_.event("firmware_update_started",
               "updating " + describe(c_) +
                   (method == "multipart_push" ? " (multipart push)" : " (SimpleUpdate)"),
               started);
    return waitTask("updating " + describe(c_));
  }

  StepOutcome waitTask(std::string message) {
    return pollUntil(env_, ctx_, env_.life.settings.timings.poll, taskDeadline(), "firmware_task",
                     std::move(message));
  }

  TimePoint taskDeadline() const {
    return env_.after(timeAt(cur_, "started_at").value_or(ctx_.now()),
                      env_.life.settings.timings.firmware_timeout);
  }

  std::optional<StepOutcome> poll(redfish::Client& client) {
    redfish::TaskRef ref{text(cur_["task"], "monitor"), text(cur_["task"], "task")};
    auto result = redfish::pollTaskOnce(client, ref);
    const bool done = result && result->terminal;
    if (!done && ctx_.now() >= taskDeadline()) {
      std::string state = result ? result->result.state : "no answer from the BMC";
      return StepOutcome::fail(
          "firmware_update_timeout",
          "the update of " + describe(c_) + " did not finish in time (" + state + ")",
          evidence(c_, cur_));
    }
    if (!done) {
      return waitTask(result ? "update " + result->result.state
                             : "BMC not answering during the update: " + result.error().message);
    }
    auto ok = redfish::taskOutcome(result->result, ref);
    if (!ok && lifecycle::countTransferRetry(cur_, result->result)) {
      return retryTransfer(result->result);
    }
    if (!ok) {
      std::string messages;
      for (const auto& m : result->result.messages) messages += (messages.empty() ? "" : "; ") + m;
      return StepOutcome::fail("firmware_update_failed",
                               "the update of " + describe(c_) + " ended " + result->result.state +
                                   (messages.empty() ? "" : ": " + messages),
                               evidence(c_, cur_));
    }
    cur_.erase("task");
    cur_["completed_at"] = isoTime(ctx_.current());
    return apply(client);
  }

  // The BMC never had the image: the intent stays and the task goes, so the next run starts the
  // update again after looking at the world (start()).
  StepOutcome retryTransfer(const redfish::TaskResult& result) {
    cur_.erase("task");
    cur_.erase("started_at");
    ctx_.event("firmware_transfer_retried",
               "the BMC could not fetch the image for " + describe(c_) + "; starting it again (" +
                   std::to_string(cur_.value("transfer_retries", 0)) + " of " +
                   std::to_string(lifecycle::kMaxImageTransferRetries) + ")",
               {{"component", c_.component}, {"messages", result.messages}});
    return StepOutcome::waitUntil(env_.after(ctx_.now(), env_.life.settings.timings.poll),
                                  "firmware_update", "image transfer failed; retrying");
  }

  std::optional<StepOutcome> apply(redfish::Client& client) {
    if (c_.apply == "immediate") {
      cur_["applied_at"] = cur_["completed_at"];
      return verify(client);
    }
    auto quirks = lifecycle::quirksOf(client, ctx_);
    if (!quirks) return unreachableOrRetry(quirks.error(), "reading the service root");
    if (c_.apply == "on_reset") return resetToApply(client, *quirks);
    return powerCycle(client, *quirks);
  }

  // The reset's intent is written before the call. A replica that finds it without applied_at
  // died around the reset: firmware applied at boot may be flashing during POST, where a second
  // reset could brick the part, so the reset counts as sent and the version is verified (the
  // rare kill between the intent and the call ends version_unchanged, for an operator's retry).
  std::optional<StepOutcome> resetToApply(redfish::Client& client, const redfish::Quirks& quirks) {
    if (cur_.contains("reset_intent_at")) {
      cur_["applied_at"] = cur_["reset_intent_at"];
      ctx_.event("firmware_apply_adopted",
                 "a replica died around the reset that applies " + describe(c_) +
                     ": not resetting again, verifying",
                 {{"component", c_.component}, {"apply", c_.apply}});
      return verify(client);
    }
    cur_["reset_intent_at"] = isoTime(ctx_.current());
    if (!ctx_.recordIntent()) {
      return StepOutcome::retry("lease_lost", "the run's lease moved on; not resetting");
    }
    auto reset = lifecycle::bootHost(client, lifecycle::systemPathOf(ctx_), quirks);
    if (!reset) {
      // Refused: the next try resets. Perhaps sent (a time-out): counted as sent, as above.
      if (redfish::certainlyNotActed(reset.error())) cur_.erase("reset_intent_at");
      return lifecycle::bmcTrouble("resetting the host to apply firmware", reset.error());
    }
    return applied("host " + reset->resetType + " to apply " + describe(c_));
  }

  // AC/aux power cycle: the chassis off, a pause, the chassis on (HGX baseboards load new GPU and
  // NVSwitch firmware only from cold). Both calls are idempotent, so a replica that resumes
  // after a kill simply asks again: ForceOff on a chassis already off and On on one already on
  // change nothing (a BMC that answers 409 to them counts as done, redfish/power.hpp).
  std::optional<StepOutcome> powerCycle(redfish::Client& client, const redfish::Quirks& quirks) {
    if (!cur_.contains("power_chassis")) {
      auto found = redfish::systemChassis(client, text(ctx_.data(), "system_path"));
      if (!found) return lifecycle::bmcTrouble("finding the system's chassis", found.error());
      cur_["power_chassis"] = *found;
    }
    const std::string chassis = text(cur_, "power_chassis");
    if (!cur_.contains("off_at")) {
      auto off = redfish::resetChassisWith(client, chassis, "ForceOff", quirks);
      if (!off) return lifecycle::bmcTrouble("powering the chassis off", off.error());
      cur_["off_at"] = isoTime(ctx_.current());
      return StepOutcome::waitUntil(env_.after(ctx_.now(), env_.settings.timings.power_off_settle),
                                    "power_cycle", "chassis off to apply " + describe(c_));
    }
    if (ctx_.now() < env_.after(*timeAt(cur_, "off_at"), env_.settings.timings.power_off_settle)) {
      return StepOutcome::waitUntil(
          env_.after(*timeAt(cur_, "off_at"), env_.settings.timings.power_off_settle),
          "power_cycle", "chassis off to apply " + describe(c_));
    }
    auto on = redfish::resetChassisWith(client, chassis, "On", quirks);
    if (!on) return lifecycle::bmcTrouble("powering the chassis on", on.error());
    return applied("chassis power cycled to apply " + describe(c_));
  }

  std::optional<StepOutcome> applied(std::string message) {
    cur_["applied_at"] = isoTime(ctx_.current());
    ctx_.event("firmware_apply", message, {{"component", c_.component}, {"apply", c_.apply}});
    return StepOutcome::waitUntil(env_.after(ctx_.now(), env_.life.settings.timings.poll),
                                  "firmware_applied", message);
  }

  std::optional<StepOutcome> verify(redfish::Client& client) {
    auto members = lifecycle::readFirmwareInventory(client);
    if (!members) return unreachable(members.error());
    const MemberCheck check = checkMembers(c_, *members);
    if (!check.covered.empty() && check.pending.empty()) {
      recordObserved(*members);
      return std::nullopt;
    }
    const auto since = timeAt(cur_, "applied_at").value_or(ctx_.now());
    const auto deadline = env_.after(since, env_.settings.timings.verify_grace);
    std::string seen;
    for (const auto& v : check.versions) seen += (seen.empty() ? "" : ", ") + v;
    if (ctx_.now() < deadline) {
      return pollUntil(env_, ctx_, env_.life.settings.timings.poll, deadline, "firmware_version",
                       "waiting for " + c_.component + " to report " + c_.to);
    }
    json detail = evidence(c_, cur_);
    detail["reported"] = check.versions;
    return StepOutcome::fail(
        "version_unchanged",
        "the update of " + describe(c_) + " reported success but the BMC still reports " + seen,
        detail);
  }

  // What the BMC reports after the update becomes the node's observed firmware (compliance).
  void recordObserved(const std::vector<lifecycle::FirmwareMember>& members) {
    auto node = lifecycle::nodeIdOf(ctx_);
    if (!node) return;
    std::vector<inventory::FirmwareObservation> seen;
    for (const auto& m : members) {
      seen.push_back({m.path, m.id, m.name, m.software_id, m.version, m.updateable});
    }
    if (auto recorded =
            inventory::recordNodeFirmware(*env_.life.deps.db, *node, seen, isoTime(ctx_.current()));
        !recorded) {
      ctx_.event("firmware_not_recorded", recorded.error().message);
    }
  }

  // Before the intent a BMC that does not answer is retried (nothing happened yet); after it,
  // it may be restarting with its new firmware.
  StepOutcome unreachableOrRetry(const common::Error& error, const std::string& doing) {
    if (cur_.contains("intent_at")) return unreachable(error);
    return lifecycle::bmcTrouble(doing, error);
  }

  const Env& env_;
  StepContext& ctx_;
  const ComponentUpdate& c_;
  json& cur_;
};

}  // namespace

std::optional<StepOutcome> flashComponents(const Env& env, StepContext& ctx, const char* key,
                                           const std::vector<ComponentUpdate>& components) {
  json& progress = section(ctx, key);
  if (!progress.contains("done") || !progress["done"].is_array()) progress["done"] = json::array();
  auto index = static_cast<std::size_t>(redfish::intAt(progress, "index").value_or(0));
  if (index >= components.size()) return std::nullopt;
  auto client = env.life.bmc(ctx);
  json& current = progress["current"];
  if (!current.is_object()) current = json::object();
  const ComponentUpdate& c = components[index];
  ComponentFlash flash(env, ctx, c, current);
  if (!client) return flash.unreachable(client.error());
  auto outcome = flash.advance(**client);
  if (outcome) return outcome;
  // Verified (or already at the version): the next component on the next execution, so the
  // progress is written between components.
  const bool flashed = current.contains("intent_at");
  json done = {{"component", c.component},
               {"from", c.from},
               {"to", c.to},
               {"flashed", flashed},
               {"at", isoTime(ctx.current())}};
  if (flashed) done["method"] = current.value("method", "simple_update");
  progress["done"].push_back(done);
  progress["index"] = index + 1;
  progress["current"] = json::object();
  ctx.event(flashed ? "firmware_verified" : "firmware_already_current",
            c.component + (flashed ? " verified at " : " already at ") + c.to, done);
  if (index + 1 >= components.size()) return std::nullopt;
  return StepOutcome::waitUntil(ctx.now(), "firmware_update", "next component");
}

std::vector<ComponentUpdate> touchedComponents(const json& progress,
                                               const std::vector<ComponentUpdate>& components) {
  std::vector<ComponentUpdate> touched;
  const auto index = static_cast<std::size_t>(redfish::intAt(progress, "index").value_or(0));
  for (const auto& done : progress.value("done", json::array())) {
    if (!done.value("flashed", false)) continue;
    for (const auto& c : components) {
      if (c.component == text(done, "component")) touched.push_back(c);
    }
  }
  const json* current = redfish::member(progress, "current");
  if (index < components.size() && current && current->contains("intent_at")) {
    touched.push_back(components[index]);
  }
  return touched;
}

}  // namespace workflows::rollout

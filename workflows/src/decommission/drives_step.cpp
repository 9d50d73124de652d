// drives: the out-of-band Drive.SecureErase of every drive the plan gave the BMC, one at a time,
// as a resumable state machine in data "drives". Per drive: intent (the BMC's tasks naming the
// drive noted, then the intent recorded in the database under the run's lease) -> erase (a task
// that appeared after the intent is ours and is adopted: never a second erase) -> the task
// followed to its end (its result kept as evidence) -> verify (the Drive re-read: no operation
// left running, health not critical) -> the device's sanitization record.
#include <algorithm>

#include "../lifecycle/firmware_inventory.hpp"
#include "../lifecycle/host_control.hpp"
#include "decommission_env.hpp"
#include "redfish/json.hpp"
#include "redfish/platform_reset.hpp"
#include "redfish/tasks.hpp"
#include "wipe_plan.hpp"

namespace workflows::decommission {
namespace {

using lifecycle::isoTime;
using lifecycle::timeAt;
using nlohmann::json;

std::string text(const json& object, const char* key) {
  return redfish::stringAt(object, key).value_or("");
}

std::string techniqueOf(const PlannedDrive& p) {
  const std::string type = p.choice.type.value_or("");
  if (type == "CryptographicErase") return "cryptographic erase";
  if (type == "BlockErase") return "block erase";
  if (type == "Overwrite") return "overwrite";
  return "the BMC's default secure erase";
}

// The NIST level claimed: what the chosen type reaches; an erase whose type the BMC does not say
// is claimed as a Clear only (the least any secure erase does), never a Purge.
std::string nistLevelOf(const PlannedDrive& p) {
  const std::string& level = p.choice.nistLevel;
  return level == "purge" || level == "clear" ? level : "clear";
}

std::string mediaOf(const redfish::DriveInfo& d) {
  return d.mediaType == "HDD" ? "hdd" : "ssd";
}

class DriveErase {
 public:
  DriveErase(const Env& env, StepContext& ctx, const PlannedDrive& p, json& current)
      : env_(env), ctx_(ctx), p_(p), cur_(current) {}

  // nullopt: the drive is erased, verified and recorded.
  std::optional<StepOutcome> advance(redfish::Client& client) {
    if (!cur_.contains("intent_at")) return intent(client);
    if (!cur_.contains("task") && !cur_.contains("completed_at")) return start(client);
    if (!cur_.contains("completed_at")) return poll(client);
    return verify(client);
  }

 private:
  const std::string& serial() const { return p_.drive.serialNumber; }

  std::optional<StepOutcome> intent(redfish::Client& client) {
    auto known = lifecycle::tasksNaming(client, p_.drive.odataId);
    if (!known) return lifecycle::bmcTrouble("reading the TaskService", known.error());
    json uris = json::array();
    for (const auto& t : *known) uris.push_back(t.uri);
    cur_ = {{"serial", serial()}, {"known_tasks", uris}, {"intent_at", isoTime(ctx_.current())}};
    ctx_.event("drive_erase_intent",
               "erasing drive " + serial() + " out of band (" + techniqueOf(p_) + ")",
               {{"serial", serial()}, {"drive", p_.drive.odataId}});
    // Recorded before the BMC is asked: a replica that resumes this run sees the intent and
    // looks at the BMC's tasks instead of erasing blind; one that lost its lease does not act.
    if (!ctx_.recordIntent()) {
      return StepOutcome::retry("lease_lost", "the run's lease moved on; not erasing");
    }
    return start(client);
  }

  // A task naming the drive that was not there before the intent: this run's erase.
  common::Result<std::optional<std::string>> ourTask(redfish::Client& client) {
    PROV_ASSIGN(auto tasks, lifecycle::tasksNaming(client, p_.drive.odataId));
    const auto known = cur_.value("known_tasks", std::vector<std::string>{});
    for (const auto& t : tasks) {
      if (std::find(known.begin(), known.end(), t.uri) == known.end()) {
        return std::optional<std::string>(t.uri);
      }
    }
    return std::optional<std::string>();
  }

  std::optional<StepOutcome> start(redfish::Client& client) {
    auto ours = ourTask(client);
    if (!ours) return lifecycle::bmcTrouble("reading the TaskService", ours.error());
    if (*ours) {
      cur_["task"] = {{"task", **ours}};
      cur_["started_at"] = isoTime(ctx_.current());
      ctx_.event("drive_erase_adopted",
                 "the erase of drive " + serial() + " is already on the BMC: " + **ours);
      return poll(client);
    }
    auto task = redfish::secureEraseDrive(client, p_.drive, p_.choice.type);
    if (!task && (redfish::isNotOffered(task.error()) ||
                  task.error().kind == common::ErrorKind::kInvalidArgument)) {
      return failed("the BMC refused Drive.SecureErase: " + task.error().message);
    }
    if (!task) return lifecycle::bmcTrouble("erasing drive " + serial(), task.error());
    cur_["started_at"] = isoTime(ctx_.current());
    if (!*task) {  // finished synchronously
      cur_["completed_at"] = isoTime(ctx_.current());
      return verify(client);
    }
    cur_["task"] = {{"monitor", (*task)->monitorUri}, {"task", (*task)->taskUri}};
    ctx_.event("drive_erase_started", "Drive.SecureErase of " + serial(),
               {{"serial", serial()}, {"task", (*task)->pollUri()}});
    return poll(client);
  }

  std::optional<StepOutcome> poll(redfish::Client& client) {
    redfish::TaskRef ref{text(cur_["task"], "monitor"), text(cur_["task"], "task")};
    auto polled = redfish::pollTaskOnce(client, ref);
    if (!polled) return lifecycle::bmcTrouble("following the erase of " + serial(), polled.error());
    const auto deadline = env_.after(timeAt(cur_, "started_at").value_or(ctx_.now()),
                                     env_.settings.drive_erase_timeout);
    if (!polled->terminal) {
      if (ctx_.now() >= deadline) {
        return failed("the erase task " + ref.pollUri() + " did not finish in time (" +
                      polled->result.state + ")");
      }
      return rollout::pollUntil(env_.roll, ctx_, env_.life().settings.timings.poll, deadline,
                                "drive_erase_task", "erasing drive " + serial());
    }
    if (auto kept = keepEvidence(ref, polled->result); !kept) {
      return StepOutcome::retry("inventory_error", kept.error().message);
    }
    if (auto outcome = redfish::taskOutcome(polled->result, ref); !outcome) {
      return failed("the erase task ended " + polled->result.state + ": " +
                    outcome.error().message);
    }
    cur_["completed_at"] = isoTime(ctx_.current());
    return verify(client);
  }

  common::Result<void> keepEvidence(const redfish::TaskRef& ref, const redfish::TaskResult& r) {
    PROV_ASSIGN(auto id, decommissionIdOf(ctx_));
    const json body = {{"drive", p_.drive.odataId},
                       {"serial", serial()},
                       {"task", ref.pollUri()},
                       {"state", r.state},
                       {"percent", r.percent ? json(*r.percent) : json(nullptr)},
                       {"messages", r.messages}};
    PROV_TRY(inventory::recordEvidence(env_.db(), id, "bmc_task_drive_" + serial(), body.dump(),
                                       ctx_.now()));
    return common::success();
  }

  // The erase is not taken on the task's word alone: the drive must show no operation still
  // running and a health that is not critical.
  std::optional<StepOutcome> verify(redfish::Client& client) {
    auto drive = lifecycle::getJson(client, p_.drive.odataId);
    if (!drive) return lifecycle::bmcTrouble("re-reading drive " + serial(), drive.error());
    const json* operations = redfish::member(*drive, "Operations");
    if (operations && operations->is_array() && !operations->empty()) {
      return failed("the drive still reports an operation in progress after its erase task");
    }
    const json* status = redfish::member(*drive, "Status");
    const std::string health = status ? text(*status, "Health") : "";
    if (health == "Critical") return failed("the drive reports Critical health after its erase");
    auto recorded = record("passed", "", health);
    if (!recorded) return StepOutcome::retry("inventory_error", recorded.error().message);
    ctx_.event("drive_verified", "drive " + serial() + " erased and re-read",
               {{"serial", serial()}, {"health", health}});
    return std::nullopt;
  }

  common::Result<void> record(const std::string& result, const std::string& failure,
                              const std::string& health) {
    PROV_ASSIGN(auto id, decommissionIdOf(ctx_));
    inventory::DeviceSanitization d;
    d.serial = serial();
    d.media_type = mediaOf(p_.drive);
    d.manufacturer = p_.drive.manufacturer;
    d.model = p_.drive.model;
    d.sanitization = nistLevelOf(p_);
    d.technique = techniqueOf(p_);
    d.tool = "Redfish Drive.SecureErase";
    d.tool_version = text(ctx_.data(), "vendor");
    d.verification_method = "BMC task state + Drive re-read";
    d.verification_coverage = 0;  // nothing is read back out of band
    d.verified_by = "provisioner (" + text(cur_.value("task", json::object()), "task") + ")";
    d.result = result;
    d.failure = failure;
    d.detail_json = json{
        {"drive", p_.drive.odataId},
        {"type", p_.choice.type ? json(*p_.choice.type) : json(nullptr)},
        {"reason", p_.choice.reason},
        {"task", cur_.value("task", json::object())},
        {"health",
         health}}.dump();
    d.started_at = text(cur_, "started_at");
    d.finished_at = isoTime(ctx_.current());
    return inventory::recordDeviceSanitizations(env_.db(), id, {d});
  }

  StepOutcome failed(const std::string& what) {
    (void)record("failed", what, "");  // best effort: the failure step records the reason too
    return StepOutcome::fail("drive_erase_failed", "drive " + serial() + ": " + what,
                             {{"serial", serial()},
                              {"drive", p_.drive.odataId},
                              {"task", cur_.value("task", json::object())}});
  }

  const Env& env_;
  StepContext& ctx_;
  const PlannedDrive& p_;
  json& cur_;
};

std::vector<PlannedDrive> outOfBand(const StepContext& ctx) {
  const json* plan = redfish::at(ctx.data(), {"wipe", "plan"});
  std::vector<PlannedDrive> out;
  for (auto& p : planFromJson(plan ? *plan : json::object())) {
    if (p.out_of_band) out.push_back(std::move(p));
  }
  return out;
}

}  // namespace

StepOutcome drivesStep(const Env& env, StepContext& ctx) {
  const auto drives = outOfBand(ctx);
  json& progress = rollout::section(ctx, "drives");
  auto index = static_cast<std::size_t>(redfish::intAt(progress, "index").value_or(0));
  if (index >= drives.size()) {
    return StepOutcome::next("platform_reset",
                             std::to_string(drives.size()) + " drive(s) erased out of band");
  }
  auto client = env.life().bmc(ctx);
  if (!client) return lifecycle::bmcTrouble("connecting to the BMC", client.error());
  for (; index < drives.size(); ++index) {
    json& current = progress["current"];
    if (!current.is_object()) current = json::object();
    DriveErase erase(env, ctx, drives[index], current);
    if (auto outcome = erase.advance(**client)) return *outcome;
    progress["done"].push_back(drives[index].drive.serialNumber);
    progress["index"] = index + 1;
    progress["current"] = json::object();
  }
  return StepOutcome::next("platform_reset",
                           std::to_string(drives.size()) + " drive(s) erased out of band");
}

}  // namespace workflows::decommission

// burn_in: the agent's verdict decides. The step waits (a persisted timer; the agent result route
// signals the run) until the agent reports or the boot's time is up; then one more boot, or a
// quarantine naming what failed.
#include <cmath>
#include <cstdio>

#include "host_control.hpp"
#include "inventory/agent_tasks.hpp"
#include "redfish/json.hpp"

namespace workflows::lifecycle {
namespace {

using nlohmann::json;

std::string number(double value) {
  char text[32];
  if (std::fabs(value - std::round(value)) < 1e-9 && std::fabs(value) < 1e15) {
    std::snprintf(text, sizeof text, "%.0f", value);
  } else {
    std::snprintf(text, sizeof text, "%.4g", value);
  }
  return text;
}

json optionalNumber(const std::optional<double>& value) {
  return value ? json(*value) : json(nullptr);
}

// "GPU 1654922006549-GPU3 hbm_bandwidth 2680 GB/s < 85% of nominal 3350"
std::string describeFailure(const inventory::BurnInResultRecord& r) {
  std::string text = "GPU " + r.gpu_serial + " " + r.test + " " + number(r.value) +
                     (r.unit.empty() ? "" : " " + r.unit);
  if (r.reason == "below_threshold" && r.nominal) {
    return text + " < " + number(r.threshold * 100) + "% of nominal " + number(*r.nominal);
  }
  text += " (" + (r.reason.empty() ? std::string("failed") : r.reason);
  if (r.batch_median) text += ", batch median " + number(*r.batch_median);
  if (r.nominal) text += ", nominal " + number(*r.nominal);
  return text + ")";
}

// Failures the agent's verdict names beyond the measurements (ECC, XID, a missing GPU).
json verdictFailures(const std::string& verdict_json, std::string& first_message) {
  json failures = json::array();
  const json verdict = json::parse(verdict_json.empty() ? "{}" : verdict_json, nullptr, false);
  const json* list = redfish::member(verdict, "failures");
  if (list == nullptr || !list->is_array()) return failures;
  for (const json& f : *list) {
    if (!f.is_object()) continue;
    if (first_message.empty()) first_message = redfish::stringAt(f, "message").value_or("");
    failures.push_back({{"gpu_serial", redfish::stringAt(f, "gpu_serial").value_or("")},
                        {"test", redfish::stringAt(f, "check").value_or("")},
                        {"value", optionalNumber(redfish::numberAt(f, "value"))},
                        {"nominal", optionalNumber(redfish::numberAt(f, "nominal"))},
                        {"batch_median", optionalNumber(redfish::numberAt(f, "batch_median"))},
                        {"reason", redfish::stringAt(f, "reason").value_or("")}});
  }
  return failures;
}

StepOutcome burnInFailed(const Env& env, const inventory::AgentTask& task) {
  auto results = inventory::taskResults(*env.deps.db, task.id);
  if (!results) return StepOutcome::retry("inventory_error", results.error().message);
  json failures = json::array();
  std::string message;
  for (const auto& r : *results) {
    if (r.passed) continue;
    if (message.empty()) message = describeFailure(r);
    failures.push_back({{"gpu_serial", r.gpu_serial},
                        {"test", r.test},
                        {"value", r.value},
                        {"unit", r.unit},
                        {"nominal", optionalNumber(r.nominal)},
                        {"batch_median", optionalNumber(r.batch_median)},
                        {"reason", r.reason}});
  }
  if (failures.empty()) failures = verdictFailures(task.verdict_json, message);
  if (message.empty()) message = "burn-in failed (task " + std::to_string(task.id) + ")";
  return StepOutcome::fail("burn_in_failed", message,
                           {{"task_id", task.id}, {"failures", failures}});
}

// No result in time: the task is cancelled (its tokens revoked) and the node boots again with a
// new one, until the attempts are spent.
StepOutcome agentTimedOut(const Env& env, StepContext& ctx, const inventory::AgentTask& task,
                          int boots) {
  const int attempts = env.settings.timings.agent_attempts;
  if (task.state == "pending" || task.state == "running") {
    auto cancelled = inventory::cancelAgentTask(*env.deps.db, task.id, "workflow",
                                                "no result from the agent in time");
    if (!cancelled && cancelled.error().code != "task_not_open") {
      return StepOutcome::retry("inventory_error", cancelled.error().message);
    }
  }
  const std::string registered =
      task.registered_at ? "registered but never reported" : "never registered";
  if (boots < attempts) {
    ctx.event("agent_timeout",
              "no result from the agent after boot " + std::to_string(boots) + " (it " +
                  registered + "); booting again",
              {{"task_id", task.id}, {"boots", boots}});
    return StepOutcome::next("imaging", "network boot again");
  }
  return StepOutcome::fail(
      "agent_timeout",
      "no result from the agent after " + std::to_string(boots) + " boots (it " + registered + ")",
      {{"task_id", task.id}, {"boots", boots}});
}

}  // namespace

StepOutcome burnInStep(const Env& env, StepContext& ctx) {
  json& imaging = ctx.data()["imaging"];
  auto task_id = redfish::intAt(imaging, "task_id");
  if (!task_id) return StepOutcome::fail("no_task", "imaging recorded no burn-in task");
  auto task = inventory::getAgentTask(*env.deps.db, *task_id);
  if (!task) return StepOutcome::retry("inventory_error", task.error().message);
  if (!imaging.value("entered", false)) {
    enterState(env, ctx, "burn_in");
    imaging["entered"] = true;
  }
  if (task->state == "passed") return StepOutcome::next("handoff", "burn-in passed");
  if (task->state == "failed") return burnInFailed(env, *task);
  const auto booted = timeAt(imaging, "booted_at").value_or(ctx.now());
  const auto deadline = env.after(booted, env.settings.timings.agent_timeout);
  const int boots = static_cast<int>(redfish::intAt(imaging, "boots").value_or(1));
  // Cancelled by this step's own time-out (its outcome lost in a crash) is still the time-out.
  if (task->state == "cancelled" && ctx.now() >= deadline) {
    return agentTimedOut(env, ctx, *task, boots);
  }
  if (task->state == "error" || task->state == "cancelled") {
    return StepOutcome::fail("burn_in_error",
                             "burn-in task " + std::to_string(task->id) + " ended " + task->state,
                             {{"task_id", task->id}, {"verdict", task->verdict_json}});
  }
  if (ctx.now() >= deadline) return agentTimedOut(env, ctx, *task, boots);
  // The result route signals the run; the timer is the safety net (and the time-out).
  return StepOutcome::waitUntil(deadline, "agent_result",
                                "burn-in task " + std::to_string(task->id) + " " + task->state);
}

}  // namespace workflows::lifecycle

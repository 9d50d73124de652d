// wipe_result: the agent's wipe report, judged by the result route (wipe_judge.hpp), decides. The
// step waits (a persisted timer; the result route signals the run) until the task ended or the
// boot's time is up; a silent agent gets one more boot, then the decommission fails.
#include "../lifecycle/host_control.hpp"
#include "decommission_env.hpp"
#include "inventory/agent_tasks.hpp"
#include "redfish/json.hpp"
#include "workflows/decommission/wipe_judge.hpp"

namespace workflows::decommission {
namespace {

using nlohmann::json;

// The route's verdict names the failed devices: {"failures": [{"serial", "what"}]}.
StepOutcome wipeFailed(const inventory::AgentTask& task) {
  const json verdict =
      json::parse(task.verdict_json.empty() ? "{}" : task.verdict_json, nullptr, false);
  std::vector<DeviceFailure> failures;
  if (const json* list = redfish::member(verdict, "failures"); list && list->is_array()) {
    for (const json& f : *list) {
      failures.push_back(
          {redfish::stringAt(f, "serial").value_or(""), redfish::stringAt(f, "what").value_or("")});
    }
  }
  std::string message = describeFailures(failures);
  if (message.empty()) {
    message = redfish::stringAt(verdict, "error")
                  .value_or("wipe task " + std::to_string(task.id) + " ended " + task.state);
  }
  return StepOutcome::fail("wipe_failed", message,
                           {{"task_id", task.id},
                            {"serial", failures.empty() ? std::string() : failures.front().serial},
                            {"failures", verdict.value("failures", json::array())}});
}

// Every drive left to the agent that the BMC names by serial must be in the agent's report.
StepOutcome checkInBandDrives(const Env& env, const StepContext& ctx) {
  auto id = decommissionIdOf(ctx);
  if (!id) return StepOutcome::fail("no_decommission", id.error().message);
  auto devices = inventory::listDeviceSanitizations(env.db(), *id);
  if (!devices) return StepOutcome::retry("inventory_error", devices.error().message);
  const json* in_band = redfish::at(ctx.data(), {"wipe", "plan", "in_band"});
  for (const json& drive : in_band && in_band->is_array() ? *in_band : json::array()) {
    const std::string serial = redfish::stringAt(drive, "serial").value_or("");
    if (serial.empty()) continue;
    bool wiped = false;
    for (const auto& d : *devices) wiped = wiped || (d.serial == serial && d.result == "passed");
    if (!wiped) {
      return StepOutcome::fail(
          "drive_not_wiped", "drive " + serial + " was left to the agent but is not in its report",
          {{"serial", serial}});
    }
  }
  return StepOutcome::next("drives", "every GPU and in-band drive wiped and verified");
}

// No report in time: the task is cancelled (its tokens revoked) and the node boots again with a
// new one, until the attempts are spent.
StepOutcome agentSilent(const Env& env, StepContext& ctx, const inventory::AgentTask& task,
                        int boots) {
  if (task.state == "pending" || task.state == "running") {
    auto cancelled = inventory::cancelAgentTask(env.db(), task.id, "workflow",
                                                "no wipe report from the agent in time");
    if (!cancelled && cancelled.error().code != "task_not_open") {
      return StepOutcome::retry("inventory_error", cancelled.error().message);
    }
  }
  if (boots < env.life().settings.timings.agent_attempts) {
    ctx.event("agent_timeout",
              "no wipe report after boot " + std::to_string(boots) + "; booting again",
              {{"task_id", task.id}, {"boots", boots}});
    return StepOutcome::next("wipe_boot", "network boot again");
  }
  return StepOutcome::fail(
      "agent_timeout", "no wipe report from the agent after " + std::to_string(boots) + " boots",
      {{"task_id", task.id}, {"boots", boots}});
}

}  // namespace

StepOutcome wipeResultStep(const Env& env, StepContext& ctx) {
  json& wipe = rollout::section(ctx, "wipe");
  auto task_id = redfish::intAt(wipe, "task_id");
  if (!task_id) return StepOutcome::fail("no_task", "wipe_boot recorded no wipe task");
  auto task = inventory::getAgentTask(env.db(), *task_id);
  if (!task) return StepOutcome::retry("inventory_error", task.error().message);
  if (task->state == "passed") return checkInBandDrives(env, ctx);
  if (task->state == "failed" || task->state == "error") return wipeFailed(*task);
  const auto booted = lifecycle::timeAt(wipe, "booted_at").value_or(ctx.now());
  const auto deadline = env.after(booted, env.settings.wipe_timeout);
  const int boots = static_cast<int>(redfish::intAt(wipe, "boots").value_or(1));
  if (task->state == "cancelled" && ctx.now() < deadline) {
    return StepOutcome::fail("wipe_cancelled",
                             "wipe task " + std::to_string(task->id) + " was cancelled",
                             {{"task_id", task->id}});
  }
  if (ctx.now() >= deadline) return agentSilent(env, ctx, *task, boots);
  return StepOutcome::waitUntil(deadline, "agent_result",
                                "wipe task " + std::to_string(task->id) + " " + task->state);
}

}  // namespace workflows::decommission

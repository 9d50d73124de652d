// gpu_flag_reset: a reset_at_idle flag (a row remap waits for the next GPU reset) carried out
// while the node is idle: drain -> the GPU reset by the node's resident agent -> a reading that
// shows no remap pending -> the flag cleared by the service -> the node given back.
#include <chrono>

#include "../lifecycle/host_control.hpp"
#include "flag_steps.hpp"
#include "inventory/gpu_flags.hpp"
#include "inventory/resident_tasks.hpp"
#include "redfish/json.hpp"
#include "workflows/health_flag_drain.hpp"

namespace workflows::flag_steps {
namespace {

using lifecycle::isoTime;
using lifecycle::timeAt;

std::string gpuOf(const inventory::GpuFlag& flag) {
  return "GPU " + flag.serial;
}

// The run's resident task: written once (the intent) before the agent can hear of it.
common::Result<inventory::ResidentTask> requestReset(const Env& env, StepContext& ctx,
                                                     const inventory::GpuFlag& flag) {
  inventory::ResidentTaskDraft draft;
  draft.node_id = *flag.node_id;
  draft.kind = inventory::kResidentGpuReset;
  draft.gpu_serial = flag.serial;
  draft.flag_id = flag.id;
  draft.run_id = ctx.run().id;
  PROV_ASSIGN(auto task,
              inventory::queueResidentTask(*env.life.deps.db, draft, secondsOf(ctx.now())));
  nlohmann::json& reset = rollout::section(ctx, "reset");
  reset["task_id"] = task.id;
  reset["requested_at"] = isoTime(ctx.current());
  ctx.event("gpu_reset_requested",
            gpuOf(flag) + ": reset at idle by the node's agent (resident task " +
                std::to_string(task.id) + ", flag " + flag.rule + ")",
            {{"flag_id", flag.id}, {"gpu_serial", flag.serial}, {"task_id", task.id}});
  return task;
}

StepOutcome resetStep(const Env& env, StepContext& ctx) {
  auto& db = *env.life.deps.db;
  auto flag_id = flagIdOf(ctx);
  if (!flag_id) return StepOutcome::fail("no_flag", flag_id.error().message);
  auto flag = inventory::getFlag(db, *flag_id);
  if (!flag) return StepOutcome::retry("inventory_error", flag.error().message);
  nlohmann::json& reset = rollout::section(ctx, "reset");
  std::optional<inventory::Id> task_id;
  if (auto id = redfish::intAt(reset, "task_id")) task_id = *id;
  if (flag->state != "open") return operatorDecided(env, ctx, *flag, task_id, "no reset");
  if (!task_id) {
    auto task = requestReset(env, ctx, *flag);
    if (!task) return StepOutcome::retry("inventory_error", task.error().message);
    task_id = task->id;
    if (!ctx.recordIntent()) return StepOutcome::retry("lease_lost", "the run moved on");
  }
  auto task = inventory::getResidentTask(db, *task_id);
  if (!task) return StepOutcome::retry("inventory_error", task.error().message);
  const auto deadline =
      env.after(*timeAt(reset, "requested_at"), env.settings.timings.resident_task_timeout);
  switch (decideResidentTask(*task, ctx.now(), deadline)) {
    case ResidentTaskDecision::kWait:
      return rollout::pollUntil(env, ctx, env.life.settings.timings.poll, deadline, "gpu_reset",
                                "the node's agent has not reported the reset of " + gpuOf(*flag));
    case ResidentTaskDecision::kTimedOut:
      return agentSilent(env, ctx, *task, "the reset of " + gpuOf(*flag));
    case ResidentTaskDecision::kCancelled:
      return StepOutcome::fail("gpu_reset_cancelled", "resident task " + std::to_string(task->id) +
                                                          " was cancelled: " + task->message);
    case ResidentTaskDecision::kFailed:
      return StepOutcome::fail("gpu_reset_failed", "the node's agent could not reset " +
                                                       gpuOf(*flag) + ": " + task->message);
    case ResidentTaskDecision::kCheck:
      break;
  }
  reset["reset_at"] = task->done_at;  // the node's clock, as its readings' times
  reset["reported_at"] = isoTime(ctx.current());
  ctx.event("gpu_reset", gpuOf(*flag) + " reset by the node's agent: " + task->message,
            {{"flag_id", flag->id}, {"gpu_serial", flag->serial}, {"task_id", task->id}});
  return StepOutcome::next("verify", gpuOf(*flag) + " reset: " + task->message);
}

StepOutcome verifyStep(const Env& env, StepContext& ctx) {
  auto& db = *env.life.deps.db;
  auto flag_id = flagIdOf(ctx);
  if (!flag_id) return StepOutcome::fail("no_flag", flag_id.error().message);
  auto flag = inventory::getFlag(db, *flag_id);
  if (!flag) return StepOutcome::retry("inventory_error", flag.error().message);
  const nlohmann::json& reset = rollout::section(ctx, "reset");
  const auto reset_at = inventory::health::parseUtc(reset.value("reset_at", ""));
  const auto reported_at = timeAt(reset, "reported_at");
  if (!reset_at || !reported_at) {
    return StepOutcome::fail("no_reset", "the run's context has no reset time");
  }
  auto gpu = inventory::gpuRemapState(db, flag->serial);
  if (!gpu) return StepOutcome::retry("inventory_error", gpu.error().message);
  const auto deadline = env.after(*reported_at, env.settings.timings.resident_task_timeout);
  switch (decideResetCheck(*gpu, *reset_at, ctx.now(), deadline)) {
    case ResetCheckDecision::kWaitForReading:
      return rollout::pollUntil(env, ctx, env.life.settings.timings.poll, deadline, "gpu_reading",
                                "no reading of " + gpuOf(*flag) + " since its reset yet");
    case ResetCheckDecision::kTimedOut:
      return StepOutcome::fail(
          "no_reading_after_reset",
          "the node's agent sent no reading of " + gpuOf(*flag) + " after its reset in time");
    case ResetCheckDecision::kStillPending:
      return StepOutcome::fail("remap_still_pending",
                               gpuOf(*flag) + " still reports a row remap pending after its reset");
    case ResetCheckDecision::kCleared:
      break;
  }
  if (flag->state != "cleared") {
    const std::string note = "reset at idle by run " + std::to_string(ctx.run().id) +
                             ": no row remap pending in the reading of " +
                             inventory::health::formatUtc(*gpu->last_sample);
    auto cleared = inventory::clearFlag(db, flag->id, "service", note, secondsOf(ctx.now()));
    if (!cleared && cleared.error().code != "flag_cleared") {
      return StepOutcome::retry("inventory_error", cleared.error().message);
    }
  }
  return StepOutcome::next("release", gpuOf(*flag) + ": no row remap pending after the reset");
}

}  // namespace
}  // namespace workflows::flag_steps

namespace workflows {

WorkflowDef gpuFlagResetWorkflow(LifecycleDeps deps, LifecycleSettings lifecycle,
                                 RolloutSettings settings) {
  return flag_steps::flagActionWorkflow(
      kGpuFlagReset, std::move(deps), std::move(lifecycle), std::move(settings),
      {{"reset", flag_steps::resetStep, {"gpu_reset"}}, {"verify", flag_steps::verifyStep, {}}});
}

}  // namespace workflows

// gpu_flag_burn_in: a rerun_burn_in flag checked while the node is idle: drain -> the profile's
// short plan (the quick check's) run on every GPU of the node by its resident agent, without a
// reboot -> the service's verdict. Passed: the flag cleared by the service and the node given
// back. Judged failed: each GPU the verdict names flagged burn_in.rerun_failed (an RMA candidate),
// the flag left open, the node kept drained. A second flag of a node whose burn-in is under way
// waits on that one's verdict.
//
//   data "burn_in": {"task_id", "requested_at", "joined_run" (another run's task)}, then
//   "reported_at"; "failure_flags" once the failed GPUs' flags are raised
#include "../lifecycle/host_control.hpp"
#include "flag_steps.hpp"
#include "inventory/gpu_flags.hpp"
#include "inventory/nodes.hpp"
#include "inventory/resident_tasks.hpp"
#include "redfish/json.hpp"
#include "workflows/health_flag_drain.hpp"

namespace workflows::flag_steps {
namespace {

using lifecycle::isoTime;
using lifecycle::timeAt;
using nlohmann::json;

// The task's spec: the plan and the GPUs the verdict expects.
common::Result<std::string> burnInSpec(const Env& env, StepContext& ctx, inventory::Id node_id) {
  PROV_ASSIGN(auto node, inventory::getNode(*env.life.deps.db, node_id));
  PROV_ASSIGN(auto profile, lifecycle::profileOf(env.life, ctx));
  return json{{"plan", rollout::quickPlan(profile, env.settings.timings.quick_check_seconds)},
              {"expected_gpus", rollout::expectedGpus(profile, node)}}
      .dump();
}

// The run's resident task: written once (the intent) before the agent can hear of it.
common::Result<inventory::ResidentTask> requestBurnIn(const Env& env, StepContext& ctx,
                                                      const inventory::GpuFlag& flag) {
  inventory::ResidentTaskDraft draft;
  draft.node_id = *flag.node_id;
  draft.kind = inventory::kResidentBurnIn;
  draft.gpu_serial = flag.serial;
  draft.flag_id = flag.id;
  draft.run_id = ctx.run().id;
  PROV_ASSIGN(draft.spec_json, burnInSpec(env, ctx, *flag.node_id));
  PROV_ASSIGN(auto task,
              inventory::queueResidentTask(*env.life.deps.db, draft, secondsOf(ctx.now())));
  json& burn_in = rollout::section(ctx, "burn_in");
  burn_in["task_id"] = task.id;
  burn_in["requested_at"] = isoTime(ctx.current());
  ctx.event("burn_in_requested",
            "GPU " + flag.serial +
                ": the node's burn-in rerun by its resident agent (resident task " +
                std::to_string(task.id) + ", flag " + flag.rule + ")",
            {{"flag_id", flag.id}, {"gpu_serial", flag.serial}, {"task_id", task.id}});
  return task;
}

// Passed: the flag is resolved by the service (the release step gives the node back).
StepOutcome passed(const Env& env, StepContext& ctx, const inventory::GpuFlag& flag,
                   const inventory::ResidentTask& task) {
  if (flag.state != "cleared") {
    const std::string note = "burn-in rerun by run " + std::to_string(ctx.run().id) +
                             " passed (resident task " + std::to_string(task.id) +
                             "): " + task.message;
    auto cleared =
        inventory::clearFlag(*env.life.deps.db, flag.id, "service", note, secondsOf(ctx.now()));
    if (!cleared && cleared.error().code != "flag_cleared") {
      return StepOutcome::retry("inventory_error", cleared.error().message);
    }
  }
  ctx.event("burn_in_passed", "GPU " + flag.serial + "'s node: " + task.message,
            {{"flag_id", flag.id}, {"gpu_serial", flag.serial}, {"task_id", task.id}});
  return StepOutcome::next("release", task.message);
}

// The GPUs the verdict names, for the run's words.
std::string failedGpus(const std::vector<inventory::health::FlagDraft>& drafts) {
  std::string out;
  for (const auto& d : drafts) out += (out.empty() ? "GPU " : ", GPU ") + d.serial;
  return out.empty() ? "no GPU named" : out;
}

// Judged failed: each GPU the verdict names gets a burn_in.rerun_failed flag (rma_candidate: its
// own drain run records the candidate), and the flag that asked stays open, holding the node.
StepOutcome judgedFailed(const Env& env, StepContext& ctx, const inventory::GpuFlag& flag,
                         const inventory::ResidentTask& task) {
  const auto verdict = json::parse(task.verdict_json, nullptr, false);
  const auto drafts = burnInFailureFlags(verdict, *flag.node_id, task.id, secondsOf(ctx.current()));
  if (!ctx.data().value("failure_flags", false)) {
    if (!drafts.empty()) {
      auto raised = inventory::raiseFlags(*env.life.deps.db, drafts, secondsOf(ctx.now()));
      if (!raised) return StepOutcome::retry("inventory_error", raised.error().message);
    }
    ctx.data()["failure_flags"] = true;
    if (!ctx.recordIntent()) return StepOutcome::retry("lease_lost", "the run moved on");
    ctx.event("burn_in_failed",
              "the node failed its burn-in rerun for flag " + flag.rule + " on GPU " + flag.serial +
                  ": " + task.message + " (" + failedGpus(drafts) + " flagged as RMA candidates)",
              {{"flag_id", flag.id}, {"gpu_serial", flag.serial}, {"task_id", task.id}});
  }
  return StepOutcome::succeed("burn-in failed: " + task.message + "; " + failedGpus(drafts) +
                              " flagged " + kBurnInRerunFailed + "; the node stays drained");
}

// The node's burn-in already asked for by another flag's run: this flag waits on it too, rather
// than the node being burned in twice.
common::Result<std::optional<inventory::ResidentTask>> joinNodeBurnIn(
    const Env& env, StepContext& ctx, const inventory::GpuFlag& flag) {
  PROV_ASSIGN(auto open, inventory::openBurnIn(*env.life.deps.db, *flag.node_id));
  if (!open) return open;
  json& burn_in = rollout::section(ctx, "burn_in");
  burn_in["task_id"] = open->id;
  burn_in["requested_at"] = isoTime(ctx.current());
  burn_in["joined_run"] = open->run_id;
  ctx.event("burn_in_joined",
            "GPU " + flag.serial + ": the node's burn-in is already under way (resident task " +
                std::to_string(open->id) + ", run " + std::to_string(open->run_id) +
                "); its verdict answers flag " + flag.rule + " too",
            {{"flag_id", flag.id}, {"gpu_serial", flag.serial}, {"task_id", open->id}});
  return open;
}

StepOutcome burnInStep(const Env& env, StepContext& ctx) {
  auto& db = *env.life.deps.db;
  auto flag_id = flagIdOf(ctx);
  if (!flag_id) return StepOutcome::fail("no_flag", flag_id.error().message);
  auto flag = inventory::getFlag(db, *flag_id);
  if (!flag) return StepOutcome::retry("inventory_error", flag.error().message);
  json& burn_in = rollout::section(ctx, "burn_in");
  std::optional<inventory::Id> task_id;
  if (auto id = redfish::intAt(burn_in, "task_id")) task_id = *id;
  if (flag->state != "open") return operatorDecided(env, ctx, *flag, task_id, "no burn-in");
  if (!task_id) {
    auto joined = joinNodeBurnIn(env, ctx, *flag);
    if (!joined) return StepOutcome::retry("inventory_error", joined.error().message);
    if (*joined) {
      task_id = (*joined)->id;
    } else {
      auto task = requestBurnIn(env, ctx, *flag);
      if (!task) return StepOutcome::retry("inventory_error", task.error().message);
      task_id = task->id;
    }
    if (!ctx.recordIntent()) return StepOutcome::retry("lease_lost", "the run moved on");
  }
  auto task = inventory::getResidentTask(db, *task_id);
  if (!task) return StepOutcome::retry("inventory_error", task.error().message);
  const auto deadline =
      env.after(*timeAt(burn_in, "requested_at"), env.settings.timings.quick_check_timeout);
  switch (decideResidentTask(*task, ctx.now(), deadline)) {
    case ResidentTaskDecision::kWait:
      return rollout::pollUntil(env, ctx, env.life.settings.timings.poll, deadline,
                                "resident_burn_in",
                                "the node's agent has not reported its burn-in yet");
    case ResidentTaskDecision::kTimedOut:
      return agentSilent(env, ctx, *task, "its burn-in");
    case ResidentTaskDecision::kCancelled:
      if (task->run_id != ctx.run().id) {
        // The run it joined gave it up (an operator decided that flag): ask for one of its own.
        burn_in.erase("task_id");
        burn_in.erase("joined_run");
        if (!ctx.recordIntent()) return StepOutcome::retry("lease_lost", "the run moved on");
        return StepOutcome::retry("burn_in_cancelled",
                                  "the joined burn-in was cancelled: " + task->message);
      }
      return StepOutcome::fail("burn_in_cancelled", "resident task " + std::to_string(task->id) +
                                                        " was cancelled: " + task->message);
    case ResidentTaskDecision::kFailed:
      // Without a verdict the agent could not run it: not evidence against the GPU.
      if (task->verdict_json.empty()) {
        return StepOutcome::fail("burn_in_not_run",
                                 "the node's agent could not run the burn-in: " + task->message);
      }
      return judgedFailed(env, ctx, *flag, *task);
    case ResidentTaskDecision::kCheck:
      break;
  }
  burn_in["reported_at"] = isoTime(ctx.current());
  return passed(env, ctx, *flag, *task);
}

}  // namespace
}  // namespace workflows::flag_steps

namespace workflows {

WorkflowDef gpuFlagBurnInWorkflow(LifecycleDeps deps, LifecycleSettings lifecycle,
                                  RolloutSettings settings) {
  return flag_steps::flagActionWorkflow(
      kGpuFlagBurnIn, std::move(deps), std::move(lifecycle), std::move(settings),
      {{"burn_in", flag_steps::burnInStep, {"resident_burn_in"}}});
}

}  // namespace workflows

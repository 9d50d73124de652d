// gpu_flag_drain: the node holding a flagged GPU drained through the scheduler hook (the
// rollouts' drain path), the action recorded on the flag before the hook is called.
// gpu_flag_release: the node given back when that flag is cleared and nothing else holds it.
#include <chrono>
#include <memory>
#include <optional>

#include "../lifecycle/bind_step.hpp"
#include "flag_steps.hpp"
#include "inventory/gpu_flags.hpp"
#include "inventory/nodes.hpp"
#include "inventory/resident_tasks.hpp"
#include "redfish/json.hpp"
#include "workflows/health_flag_drain.hpp"

namespace workflows::flag_steps {

inventory::health::Seconds secondsOf(TimePoint t) {
  return std::chrono::time_point_cast<std::chrono::seconds>(t);
}

common::Result<inventory::Id> flagIdOf(const StepContext& ctx) {
  if (auto id = redfish::intAt(ctx.data(), "flag_id"); id && *id > 0) return *id;
  return common::fail(
      common::invalidArgument("no_flag", "the run's context names no flag_id", "flag_id"));
}

StepOutcome drainForFlag(const Env& env, StepContext& ctx, const std::string& next_step) {
  auto& db = *env.life.deps.db;
  auto flag_id = flagIdOf(ctx);
  if (!flag_id) return StepOutcome::fail("no_flag", flag_id.error().message);
  // Recorded on the flag before the scheduler hears of it: once, and only while it is open.
  auto marked = inventory::markFlagActionStarted(db, *flag_id, ctx.run().id, secondsOf(ctx.now()));
  if (!marked) return StepOutcome::retry("inventory_error", marked.error().message);
  auto flag = inventory::getFlag(db, *flag_id);
  if (!flag) {
    if (flag.error().kind == common::ErrorKind::kNotFound) {
      return StepOutcome::fail("no_flag", flag.error().message);
    }
    return StepOutcome::retry("inventory_error", flag.error().message);
  }
  switch (decideFlagDrain(*flag, ctx.run().id)) {
    case FlagDrainDecision::kOperatorDecided:
      return StepOutcome::succeed(
          "flag " + flag->rule + " on GPU " + flag->serial + " is " + flag->state + " by " +
          (flag->state == "cleared" ? flag->cleared_by : flag->acknowledged_by) +
          ": the node is not drained");
    case FlagDrainDecision::kOtherRun:
      return StepOutcome::succeed("flag " + std::to_string(flag->id) +
                                  ": the action belongs to run " +
                                  std::to_string(flag->action_run_id.value_or(0)));
    case FlagDrainDecision::kDrain:
      break;
  }
  if (!flag->node_id) return StepOutcome::fail("no_node", "the flag names no node");
  if (!ctx.run().node_id) {
    auto node = inventory::getNode(db, *flag->node_id);
    if (!node) return StepOutcome::retry("inventory_error", node.error().message);
    ctx.attachNode(node->id, node->site, node->rack);
  }
  if (!ctx.data().contains("node_id")) ctx.data()["node_id"] = *flag->node_id;
  const std::string reason = flagDrainReason(*flag);
  if (!rollout::section(ctx, "drain").contains("requested_at")) {
    ctx.event("flag_drain", reason,
              {{"flag_id", flag->id},
               {"rule", flag->rule},
               {"gpu_serial", flag->serial},
               {"action", flag->action}});
  }
  return rollout::drainUntilIdle(env, ctx, reason, next_step);
}

StepOutcome operatorDecided(const Env& env, StepContext& ctx, const inventory::GpuFlag& flag,
                            std::optional<inventory::Id> task_id, const std::string& what_not) {
  if (task_id) {
    auto cancelled = inventory::cancelResidentTask(*env.life.deps.db, *task_id,
                                                   "flag " + flag.state, secondsOf(ctx.now()));
    if (!cancelled) return StepOutcome::retry("inventory_error", cancelled.error().message);
  }
  const std::string who = flag.state == "cleared" ? flag.cleared_by : flag.acknowledged_by;
  return StepOutcome::succeed("flag " + flag.rule + " on GPU " + flag.serial + " is " + flag.state +
                              " by " + who + ": " + what_not);
}

StepOutcome drainForFlagStep(const Env& env, StepContext& ctx) {
  return drainForFlag(env, ctx, "drained");
}

namespace {

StepOutcome drainedStep(const Env& env, StepContext& ctx) {
  auto& db = *env.life.deps.db;
  auto flag_id = flagIdOf(ctx);
  if (!flag_id) return StepOutcome::fail("no_flag", flag_id.error().message);
  auto flag = inventory::getFlag(db, *flag_id);
  if (!flag) return StepOutcome::retry("inventory_error", flag.error().message);
  const auto now = secondsOf(ctx.now());
  const std::string note = "run " + std::to_string(ctx.run().id);
  // Each event once, even when the step is tried again after one of them was written.
  auto once = [&](const char* key, const std::string& kind) -> std::optional<StepOutcome> {
    if (ctx.data().value(key, false)) return std::nullopt;
    if (auto e = inventory::recordFlagActionEvent(db, flag->id, kind, note, now); !e) {
      return StepOutcome::retry("inventory_error", e.error().message);
    }
    ctx.data()[key] = true;
    if (!ctx.recordIntent()) return StepOutcome::retry("lease_lost", "the run moved on");
    return std::nullopt;
  };
  if (auto stop = once("drained_event", "flag_drained")) return *stop;
  std::string message = flagDrainReason(*flag);
  if (flag->action == "rma_candidate") {
    if (auto stop = once("rma_event", "rma_candidate")) return *stop;
    ctx.event("rma_candidate",
              "GPU " + flag->serial + " is an RMA candidate (flag " + flag->rule + ")",
              {{"flag_id", flag->id}, {"gpu_serial", flag->serial}});
    message += "; GPU " + flag->serial + " is an RMA candidate";
  }
  return StepOutcome::succeed(message);
}

// The scheduler told, with a hook error as the step's outcome.
std::optional<StepOutcome> tell(const Env& env, StepContext& ctx, bool drain,
                                const std::string& reason) {
  auto told = rollout::tellScheduler(env, ctx, drain, reason);
  if (told) return std::nullopt;
  if (told.error().kind == common::ErrorKind::kInvalidArgument) {
    return StepOutcome::fail("invalid_drain_hook", told.error().message);
  }
  return StepOutcome::retry("scheduler_unreachable", told.error().message);
}

std::string holders(const std::vector<inventory::Id>& ids) {
  std::string out;
  for (auto id : ids) out += (out.empty() ? "" : ", ") + std::to_string(id);
  return out;
}

StepOutcome released(const Env& env, StepContext& ctx, const inventory::GpuFlag& flag,
                     const std::string& note) {
  auto marked = inventory::markFlagReleased(*env.life.deps.db, flag.id, ctx.run().id, note,
                                            secondsOf(ctx.now()));
  if (!marked) return StepOutcome::retry("inventory_error", marked.error().message);
  return StepOutcome::succeed("flag " + std::to_string(flag.id) + ": " + note);
}

}  // namespace

StepOutcome releaseFlagNode(const Env& env, StepContext& ctx) {
  auto& db = *env.life.deps.db;
  auto flag_id = flagIdOf(ctx);
  if (!flag_id) return StepOutcome::fail("no_flag", flag_id.error().message);
  auto flag = inventory::getFlag(db, *flag_id);
  if (!flag) return StepOutcome::retry("inventory_error", flag.error().message);
  if (!flag->node_id) return StepOutcome::succeed("the flag names no node");
  auto node = inventory::getNode(db, *flag->node_id);
  if (!node) return StepOutcome::retry("inventory_error", node.error().message);
  auto holding = inventory::flagsHoldingNode(db, node->id, flag->id);
  if (!holding) return StepOutcome::retry("inventory_error", holding.error().message);
  if (!ctx.run().node_id) ctx.attachNode(node->id, node->site, node->rack);
  if (!ctx.data().contains("node_id")) ctx.data()["node_id"] = node->id;
  switch (decideFlagRelease(*flag, *holding, node->state)) {
    case FlagReleaseDecision::kNothing:
      return StepOutcome::succeed("flag " + std::to_string(flag->id) + ": nothing to release");
    case FlagReleaseDecision::kNodeOut:
      return released(env, ctx, *flag, "not given back: the node is " + node->state);
    case FlagReleaseDecision::kStillHeld:
      return released(env, ctx, *flag, "still drained for flag(s) " + holders(*holding));
    case FlagReleaseDecision::kUndrain:
      break;
  }
  const std::string reason = "undrained: flag " + flag->rule + " on GPU " + flag->serial +
                             " cleared by " + flag->cleared_by;
  if (auto stop = tell(env, ctx, false, reason)) return *stop;
  ctx.event("flag_undrain", reason,
            {{"flag_id", flag->id}, {"rule", flag->rule}, {"gpu_serial", flag->serial}});
  // A flag whose drain started while this one was being released holds the node again.
  auto again = inventory::flagsHoldingNode(db, node->id, flag->id);
  if (!again) return StepOutcome::retry("inventory_error", again.error().message);
  if (!again->empty()) {
    auto holder = inventory::getFlag(db, again->front());
    if (!holder) return StepOutcome::retry("inventory_error", holder.error().message);
    if (auto stop = tell(env, ctx, true, flagDrainReason(*holder))) return *stop;
    return released(env, ctx, *flag,
                    "given back, then drained again for flag(s) " + holders(*again));
  }
  return released(env, ctx, *flag, "node given back to the scheduler");
}

}  // namespace workflows::flag_steps

namespace workflows {

using flag_steps::Env;

WorkflowDef gpuFlagReleaseWorkflow(LifecycleDeps deps, LifecycleSettings lifecycle,
                                   RolloutSettings settings) {
  auto env = rollout::makeNodeEnv(std::move(deps), std::move(lifecycle), std::move(settings));
  const StepBackoff backoff = bmcStepBackoff(env->life.settings.timings);
  WorkflowDef def;
  def.kind = kGpuFlagRelease;
  def.first_step = "release";
  def.steps = {withSideEffects(bindStep(env, "release", flag_steps::releaseFlagNode, 10, backoff),
                               {"scheduler_undrain", "scheduler_drain"})};
  return def;
}

WorkflowDef gpuFlagDrainWorkflow(LifecycleDeps deps, LifecycleSettings lifecycle,
                                 RolloutSettings settings) {
  auto env = rollout::makeNodeEnv(std::move(deps), std::move(lifecycle), std::move(settings));
  const StepBackoff backoff = bmcStepBackoff(env->life.settings.timings);
  WorkflowDef def;
  def.kind = kGpuFlagDrain;
  def.first_step = "drain";
  def.steps = {
      withSideEffects(bindStep(env, "drain", flag_steps::drainForFlagStep, 10, backoff),
                      {"scheduler_drain"}),
      bindStep(env, "drained", flag_steps::drainedStep, 10, backoff),
  };
  return def;
}

}  // namespace workflows

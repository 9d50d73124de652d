// The shape the flag actions that hand work to the node's resident agent share (gpu_flag_reset,
// gpu_flag_burn_in): drain -> the action's own steps -> release, and the run's give-up on a
// resident task the agent never reported.
#include "../lifecycle/bind_step.hpp"
#include "flag_steps.hpp"
#include "inventory/resident_tasks.hpp"

namespace workflows::flag_steps {

StepOutcome agentSilent(const Env& env, StepContext& ctx, const inventory::ResidentTask& task,
                        const std::string& what) {
  auto cancelled = inventory::cancelResidentTask(*env.life.deps.db, task.id, "the run timed out",
                                                 secondsOf(ctx.now()));
  if (!cancelled) return StepOutcome::retry("inventory_error", cancelled.error().message);
  return StepOutcome::fail("agent_silent",
                           "the node's resident agent did not report " + what + " in time");
}

WorkflowDef flagActionWorkflow(const char* kind, LifecycleDeps deps, LifecycleSettings lifecycle,
                               RolloutSettings settings, const std::vector<ActionStep>& action) {
  auto env = rollout::makeNodeEnv(std::move(deps), std::move(lifecycle), std::move(settings));
  const StepBackoff backoff = bmcStepBackoff(env->life.settings.timings);
  WorkflowDef def;
  def.kind = kind;
  def.first_step = "drain";
  std::function<StepOutcome(const Env&, StepContext&)> drain =
      [next = std::string(action.front().name)](const Env& e, StepContext& ctx) {
        return drainForFlag(e, ctx, next);
      };
  def.steps.push_back(
      withSideEffects(bindStep(env, "drain", std::move(drain), 10, backoff), {"scheduler_drain"}));
  for (const auto& step : action) {
    StepDef bound = bindStep(env, step.name, step.run, 10, backoff);
    def.steps.push_back(step.effects.empty() ? std::move(bound)
                                             : withSideEffects(std::move(bound), step.effects));
  }
  def.steps.push_back(withSideEffects(bindStep(env, "release", releaseFlagNode, 10, backoff),
                                      {"scheduler_undrain", "scheduler_drain"}));
  return def;
}

}  // namespace workflows::flag_steps

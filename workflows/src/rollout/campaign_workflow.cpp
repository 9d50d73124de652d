// The campaign controller as a workflow definition, and the registration of both rollout
// workflows on an engine.
#include <memory>

#include "controller_steps.hpp"

namespace workflows {

WorkflowDef firmwareCampaignWorkflow(LifecycleDeps deps, LifecycleSettings lifecycle,
                                     RolloutSettings settings, StartRun start_run) {
  auto env = std::make_shared<const rollout::Env>(
      rollout::Env{lifecycle::Env{std::move(deps), std::move(lifecycle)}, std::move(settings),
                   std::move(start_run)});
  const auto& t = env->life.settings.timings;
  StepDef tick;
  tick.name = "tick";
  tick.run = [env](StepContext& ctx) { return rollout::controllerStep(*env, ctx); };
  // A database that is away for minutes must not end a campaign: a long budget.
  tick.max_attempts = 30;
  tick.backoff_base = t.scaled(Duration(2000));
  tick.backoff_cap = t.scaled(Duration(60000));
  WorkflowDef def;
  def.kind = kFirmwareCampaign;
  def.first_step = "tick";
  def.steps = {tick};
  return def;
}

void registerRolloutWorkflows(Engine& engine, LifecycleDeps deps, LifecycleSettings lifecycle,
                              RolloutSettings settings) {
  engine.registerWorkflow(nodeFirmwareUpdateWorkflow(deps, lifecycle, settings));
  engine.registerWorkflow(nodeImageUpdateWorkflow(deps, lifecycle, settings));
  Engine* owner = &engine;  // the engine outlives the workflows it runs
  engine.registerWorkflow(firmwareCampaignWorkflow(
      std::move(deps), std::move(lifecycle), std::move(settings),
      [owner](const StartRequest& request) { return owner->start(request); }));
}

}  // namespace workflows

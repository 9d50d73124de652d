// The node's firmware update as a workflow definition: the steps in order with their budgets.
#include <memory>

#include "../lifecycle/bind_step.hpp"
#include "node_steps.hpp"

namespace workflows {

WorkflowDef nodeFirmwareUpdateWorkflow(LifecycleDeps deps, LifecycleSettings lifecycle,
                                       RolloutSettings settings) {
  auto env = rollout::makeNodeEnv(std::move(deps), std::move(lifecycle), std::move(settings));
  const StepBackoff backoff = bmcStepBackoff(env->life.settings.timings);
  WorkflowDef def;
  def.kind = kNodeFirmwareUpdate;
  def.first_step = "drain";
  def.failure_step = "recover";
  def.steps = {
      withSideEffects(bindStep(env, "drain", rollout::drainStep, 6, backoff), {"scheduler_drain"}),
      withSideEffects(bindStep(env, "flash", rollout::flashStep, 6, backoff),
                      {"firmware_update", "host_reset", "power_cycle"}),
      withSideEffects(bindStep(env, "quick_check", rollout::quickCheckStep, 5, backoff),
                      {"network_boot"}),
      withSideEffects(bindStep(env, "undrain", rollout::undrainStep, 10, backoff),
                      {"scheduler_undrain"}),
      bindStep(env, "recover", rollout::recoverStep, 5, backoff),
      withSideEffects(bindStep(env, "rollback_flash", rollout::rollbackFlashStep, 6, backoff),
                      {"firmware_update", "host_reset", "power_cycle"}),
  };
  return def;
}

}  // namespace workflows

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
      bindStep(env, "drain", rollout::drainStep, 6, backoff),
      bindStep(env, "flash", rollout::flashStep, 6, backoff),
      bindStep(env, "quick_check", rollout::quickCheckStep, 5, backoff),
      bindStep(env, "undrain", rollout::undrainStep, 10, backoff),
      bindStep(env, "recover", rollout::recoverStep, 5, backoff),
      bindStep(env, "rollback_flash", rollout::rollbackFlashStep, 6, backoff),
  };
  return def;
}

}  // namespace workflows

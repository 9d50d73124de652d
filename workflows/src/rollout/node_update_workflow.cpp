// The node's firmware update as a workflow definition: the steps in order with their budgets.
#include <memory>

#include "../lifecycle/bind_step.hpp"
#include "node_steps.hpp"

namespace workflows {
namespace {

using rollout::Env;

}  // namespace

WorkflowDef nodeFirmwareUpdateWorkflow(LifecycleDeps deps, LifecycleSettings lifecycle,
                                       RolloutSettings settings) {
  auto env = std::make_shared<const Env>(
      Env{lifecycle::Env{std::move(deps), std::move(lifecycle)}, std::move(settings), {}});
  const auto& t = env->life.settings.timings;
  const Duration base = t.scaled(Duration(2000));
  const Duration cap = t.scaled(Duration(120000));
  WorkflowDef def;
  def.kind = kNodeFirmwareUpdate;
  def.first_step = "drain";
  def.failure_step = "recover";
  def.steps = {
      bindStep(env, "drain", rollout::drainStep, 6, base, cap),
      bindStep(env, "flash", rollout::flashStep, 6, base, cap),
      bindStep(env, "quick_check", rollout::quickCheckStep, 5, base, cap),
      bindStep(env, "undrain", rollout::undrainStep, 10, base, cap),
      bindStep(env, "recover", rollout::recoverStep, 5, base, cap),
      bindStep(env, "rollback_flash", rollout::rollbackFlashStep, 6, base, cap),
  };
  return def;
}

}  // namespace workflows

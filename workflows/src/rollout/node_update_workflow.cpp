// The node's firmware update as a workflow definition: the steps in order with their budgets.
#include <memory>

#include "node_steps.hpp"

namespace workflows {
namespace {

using rollout::Env;
using StepFn = StepOutcome (*)(const Env&, StepContext&);

StepDef step(const std::shared_ptr<const Env>& env, std::string name, StepFn fn, int max_attempts,
             Duration base, Duration cap) {
  StepDef def;
  def.name = std::move(name);
  def.run = [env, fn](StepContext& ctx) { return fn(*env, ctx); };
  def.max_attempts = max_attempts;
  def.backoff_base = base;
  def.backoff_cap = cap;
  return def;
}

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
      step(env, "drain", rollout::drainStep, 6, base, cap),
      step(env, "flash", rollout::flashStep, 6, base, cap),
      step(env, "quick_check", rollout::quickCheckStep, 5, base, cap),
      step(env, "undrain", rollout::undrainStep, 10, base, cap),
      step(env, "recover", rollout::recoverStep, 5, base, cap),
      step(env, "rollback_flash", rollout::rollbackFlashStep, 6, base, cap),
  };
  return def;
}

}  // namespace workflows

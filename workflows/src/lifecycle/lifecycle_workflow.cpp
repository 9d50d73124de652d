// The node lifecycle as a workflow definition: the steps in order, each with its retry budget.
#include <memory>

#include "lifecycle_steps.hpp"

namespace workflows {
namespace {

using lifecycle::Env;
using StepFn = StepOutcome (*)(const Env&, StepContext&);

StepDef step(const std::shared_ptr<const Env>& env, std::string name, StepFn fn, int max_attempts,
             Duration backoff_base, Duration backoff_cap) {
  StepDef def;
  def.name = std::move(name);
  def.run = [env, fn](StepContext& ctx) { return fn(*env, ctx); };
  def.max_attempts = max_attempts;
  def.backoff_base = backoff_base;
  def.backoff_cap = backoff_cap;
  return def;
}

}  // namespace

WorkflowDef nodeLifecycleWorkflow(LifecycleDeps deps, LifecycleSettings settings) {
  auto env = std::make_shared<const Env>(Env{std::move(deps), std::move(settings)});
  const auto& t = env->settings.timings;
  // A BMC that is rebooting or out of sessions recovers within minutes: Redfish steps get a
  // generous budget; steps that only touch the database need few tries.
  const Duration base = t.scaled(Duration(2000));
  const Duration cap = t.scaled(Duration(120000));
  WorkflowDef def;
  def.kind = kNodeLifecycle;
  def.first_step = "match";
  def.failure_step = "quarantine";
  def.steps = {
      step(env, "match", lifecycle::matchStep, 8, base, cap),
      step(env, "admit", lifecycle::admitStep, 5, base, cap),
      step(env, "claim", lifecycle::claimStep, 8, base, cap),
      step(env, "inspect", lifecycle::inspectStep, 8, base, cap),
      step(env, "configure", lifecycle::configureStep, 6, base, cap),
      step(env, "firmware", lifecycle::firmwareStep, 4, base, cap),
      step(env, "imaging", lifecycle::imagingStep, 6, base, cap),
      step(env, "burn_in", lifecycle::burnInStep, 4, base, cap),
      step(env, "handoff", lifecycle::handoffStep, 10, base, t.scaled(Duration(300000))),
      step(env, "quarantine", lifecycle::quarantineStep, 5, base, cap),
  };
  return def;
}

}  // namespace workflows

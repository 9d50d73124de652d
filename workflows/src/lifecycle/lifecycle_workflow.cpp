// The node lifecycle as a workflow definition: the steps in order, each with its retry budget.
#include <memory>

#include "bind_step.hpp"
#include "lifecycle_steps.hpp"

namespace workflows {
namespace {

using lifecycle::Env;

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
      bindStep(env, "match", lifecycle::matchStep, 8, base, cap),
      bindStep(env, "admit", lifecycle::admitStep, 5, base, cap),
      bindStep(env, "claim", lifecycle::claimStep, 8, base, cap),
      bindStep(env, "inspect", lifecycle::inspectStep, 8, base, cap),
      bindStep(env, "configure", lifecycle::configureStep, 6, base, cap),
      bindStep(env, "firmware", lifecycle::firmwareStep, 4, base, cap),
      bindStep(env, "imaging", lifecycle::imagingStep, 6, base, cap),
      bindStep(env, "burn_in", lifecycle::burnInStep, 4, base, cap),
      bindStep(env, "handoff", lifecycle::handoffStep, 10, base, t.scaled(Duration(300000))),
      bindStep(env, "quarantine", lifecycle::quarantineStep, 5, base, cap),
  };
  return def;
}

}  // namespace workflows

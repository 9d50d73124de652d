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
  // Redfish steps get a generous budget; steps that only touch the database need few tries.
  const StepBackoff backoff = bmcStepBackoff(env->settings.timings);
  WorkflowDef def;
  def.kind = kNodeLifecycle;
  def.first_step = "match";
  def.failure_step = "quarantine";
  def.steps = {
      bindStep(env, "match", lifecycle::matchStep, 8, backoff),
      bindStep(env, "admit", lifecycle::admitStep, 5, backoff),
      withSideEffects(bindStep(env, "claim", lifecycle::claimStep, 8, backoff),
                      {"bmc_password_change", "event_subscription"}),
      bindStep(env, "inspect", lifecycle::inspectStep, 8, backoff),
      withSideEffects(bindStep(env, "configure", lifecycle::configureStep, 6, backoff),
                      {"bios_patch", "host_reset"}),
      withSideEffects(bindStep(env, "firmware", lifecycle::firmwareStep, 4, backoff),
                      {"firmware_update", "host_reset"}),
      withSideEffects(bindStep(env, "imaging", lifecycle::imagingStep, 6, backoff),
                      {"network_boot"}),
      bindStep(env, "burn_in", lifecycle::burnInStep, 4, backoff),
      withSideEffects(bindStep(env, "handoff", lifecycle::handoffStep, 10, backoff.base,
                               env->settings.timings.scaled(Duration(300000))),
                      {"scheduler_handoff"}),
      bindStep(env, "quarantine", lifecycle::quarantineStep, 5, backoff),
  };
  return def;
}

}  // namespace workflows

// The node decommission as a workflow definition: the steps in order with their budgets.
#include <memory>

#include "../lifecycle/bind_step.hpp"
#include "decommission_env.hpp"

namespace workflows {
namespace {

using decommission::Env;

}  // namespace

std::string decommissionSubject(inventory::Id decommission_id) {
  return "decommission:" + std::to_string(decommission_id);
}

WorkflowDef nodeDecommissionWorkflow(LifecycleDeps deps, LifecycleSettings lifecycle,
                                     RolloutSettings rollout, DecommissionSettings settings) {
  auto env = std::make_shared<const Env>(Env{
      rollout::Env{lifecycle::Env{std::move(deps), std::move(lifecycle)}, std::move(rollout), {}},
      std::move(settings)});
  const StepBackoff backoff = bmcStepBackoff(env->life().settings.timings);
  WorkflowDef def;
  def.kind = kNodeDecommission;
  def.first_step = "drain";
  def.failure_step = "fail_decommission";
  def.steps = {
      withSideEffects(bindStep(env, "drain", decommission::drainStep, 6, backoff),
                      {"scheduler_drain"}),
      withSideEffects(bindStep(env, "wipe_boot", decommission::wipeBootStep, 6, backoff),
                      {"network_boot"}),
      bindStep(env, "wipe_result", decommission::wipeResultStep, 6, backoff),
      withSideEffects(bindStep(env, "drives", decommission::drivesStep, 6, backoff),
                      {"drive_erase"}),
      withSideEffects(bindStep(env, "platform_reset", decommission::platformResetStep, 6, backoff),
                      {"bios_reset_defaults", "system_decommission", "bmc_reset_defaults",
                       "bmc_account_removal"}),
      withSideEffects(bindStep(env, "certify", decommission::certifyStep, 6, backoff),
                      {"certificate_signing"}),
      bindStep(env, "fail_decommission", decommission::failDecommissionStep, 10, backoff),
  };
  return def;
}

}  // namespace workflows

// The node's image update as a workflow definition: its own kind (node_image_update) rather than
// a mode of the firmware update, so each definition reads as the path it is; the drain, quick
// check and undrain steps are shared.
#include <memory>

#include "../lifecycle/bind_step.hpp"
#include "image_steps.hpp"
#include "node_steps.hpp"

namespace workflows {

WorkflowDef nodeImageUpdateWorkflow(LifecycleDeps deps, LifecycleSettings lifecycle,
                                    RolloutSettings settings) {
  auto env = rollout::makeNodeEnv(std::move(deps), std::move(lifecycle), std::move(settings));
  const StepBackoff backoff = bmcStepBackoff(env->life.settings.timings);
  WorkflowDef def;
  def.kind = kNodeImageUpdate;
  def.first_step = "drain";
  def.failure_step = "recover_image";
  def.steps = {
      withSideEffects(bindStep(env, "drain", rollout::imageDrainStep, 6, backoff),
                      {"scheduler_drain"}),
      bindStep(env, "boot_new", rollout::bootNewImageStep, 3, backoff),
      withSideEffects(bindStep(env, "quick_check", rollout::imageCheckStep, 5, backoff),
                      {"network_boot"}),
      withSideEffects(bindStep(env, "undrain", rollout::undrainStep, 10, backoff),
                      {"scheduler_undrain"}),
      bindStep(env, "recover_image", rollout::recoverImageStep, 5, backoff),
      withSideEffects(bindStep(env, "check_previous", rollout::imageCheckStep, 5, backoff),
                      {"network_boot"}),
  };
  return def;
}

}  // namespace workflows

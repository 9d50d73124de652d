// The node's image update as a workflow definition: its own kind (node_image_update) rather than
// a mode of the firmware update, so each definition reads as the path it is; the drain, quick
// check and undrain steps are shared.
#include <memory>

#include "../lifecycle/bind_step.hpp"
#include "image_steps.hpp"
#include "node_steps.hpp"

namespace workflows {
namespace {

using rollout::Env;

}  // namespace

WorkflowDef nodeImageUpdateWorkflow(LifecycleDeps deps, LifecycleSettings lifecycle,
                                    RolloutSettings settings) {
  auto env = std::make_shared<const Env>(
      Env{lifecycle::Env{std::move(deps), std::move(lifecycle)}, std::move(settings), {}});
  const auto& t = env->life.settings.timings;
  const Duration base = t.scaled(Duration(2000));
  const Duration cap = t.scaled(Duration(120000));
  WorkflowDef def;
  def.kind = kNodeImageUpdate;
  def.first_step = "drain";
  def.failure_step = "recover_image";
  def.steps = {
      bindStep(env, "drain", rollout::imageDrainStep, 6, base, cap),
      bindStep(env, "boot_new", rollout::bootNewImageStep, 3, base, cap),
      bindStep(env, "quick_check", rollout::imageCheckStep, 5, base, cap),
      bindStep(env, "undrain", rollout::undrainStep, 10, base, cap),
      bindStep(env, "recover_image", rollout::recoverImageStep, 5, base, cap),
      bindStep(env, "check_previous", rollout::imageCheckStep, 5, base, cap),
  };
  return def;
}

}  // namespace workflows

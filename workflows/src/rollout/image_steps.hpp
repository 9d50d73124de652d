// The steps of a node's image update (node_image_update), strung together in
// node_image_workflow.cpp:
//
//   drain -> boot_new -> quick_check -> undrain              (any failure -> recover_image)
//   recover_image: nothing booted -> undrain (failed, untouched); the new image was booted and
//                  the previous one is known -> check_previous (the quick check, booting the
//                  previous image) -> undrain (rolled_back); otherwise, or when the previous image
//                  does not come up either -> the node is quarantined.
//
// Context written by the controller (besides rollout_env.hpp's keys):
//   "image"       {"from": {"name", "version"} | null, "to": {"name", "version"}}
// and by the steps, each before the reboot it is about (intent first):
//   "image_boot"  {"phase": "new" | "previous", "image": {...}, "at"}
//   "boot_image"  the image the next quick-check task names (the boot route serves it)
#pragma once

#include "rollout_env.hpp"

namespace workflows::rollout {

StepOutcome imageDrainStep(const Env& env, StepContext& ctx);
StepOutcome bootNewImageStep(const Env& env, StepContext& ctx);
StepOutcome imageCheckStep(const Env& env, StepContext& ctx);
StepOutcome recoverImageStep(const Env& env, StepContext& ctx);

}  // namespace workflows::rollout

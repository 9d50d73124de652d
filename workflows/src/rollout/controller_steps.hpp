// The campaign controller's step (firmware_campaign runs have one step, "tick", that waits
// between looks).
#pragma once

#include "rollout_env.hpp"

namespace workflows::rollout {

StepOutcome controllerStep(const Env& env, StepContext& ctx);

}  // namespace workflows::rollout

// The steps the health flags' runs share (private to this folder): the drain of a flag's node and
// its release, used by gpu_flag_drain, gpu_flag_release and gpu_flag_reset.
#pragma once

#include <string>

#include "../rollout/node_steps.hpp"
#include "inventory/health/time.hpp"
#include "inventory/types.hpp"

namespace workflows::flag_steps {

using rollout::Env;

inventory::health::Seconds secondsOf(TimePoint t);

// The run's "flag_id"; InvalidArgument "no_flag" without one.
common::Result<inventory::Id> flagIdOf(const StepContext& ctx);

// Records the action on the flag (once, only while it is open), then drains the node until idle
// -> `next_step`; ends the run when an operator decided the flag or another run has its action.
StepOutcome drainForFlag(const Env& env, StepContext& ctx, const std::string& next_step);

// A cleared flag's node given back unless another flag holds it (gpu_flag_release's step).
StepOutcome releaseFlagNode(const Env& env, StepContext& ctx);

}  // namespace workflows::flag_steps

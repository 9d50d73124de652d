// The drain run of a health flag (gpu_flag_drain, workflows/health_actions.hpp): the rollouts'
// scheduler hook and drain, one run per flag.
#pragma once

#include "workflows/health_actions.hpp"
#include "workflows/rollout.hpp"

namespace workflows {

// drain (record the action on the flag, then rollout::drainUntilIdle) -> drained (a
// flag_drained event; for rma_candidate also an rma_candidate event). The run's context:
// "flag_id", "node_id" (set by startFlagActions), "drain" {"requested_at", "idle_at"}.
WorkflowDef gpuFlagDrainWorkflow(LifecycleDeps deps, LifecycleSettings lifecycle,
                                 RolloutSettings settings);

}  // namespace workflows

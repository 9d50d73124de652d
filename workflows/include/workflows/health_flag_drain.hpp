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

// release: a cleared flag's node given back to the scheduler (the rollouts' undrain hook) unless
// another flag still holds it or the node is leaving the fleet; then the release is recorded on
// the flag (a flag_released event). The hook is idempotent, so a replica that resumes the run
// after the call calls it again rather than skipping it. If another flag started draining the
// node meanwhile, the node is drained again for it. Context: "flag_id", "node_id".
WorkflowDef gpuFlagReleaseWorkflow(LifecycleDeps deps, LifecycleSettings lifecycle,
                                   RolloutSettings settings);

// reset (reset_at_idle): drain (as gpu_flag_drain's) -> reset (a resident task for the node's
// agent, written once before the agent hears of it; waits for its outcome) -> verify (waits for a
// reading sampled after the reset; none pending: the flag is cleared by "service") -> release (as
// gpu_flag_release's). Failures (agent_silent, gpu_reset_failed, remap_still_pending,
// no_reading_after_reset) leave the node drained and the flag open for an operator. Context:
// "flag_id", "node_id", "drain", "reset" {"task_id", "requested_at", "reset_at", "reported_at"}.
WorkflowDef gpuFlagResetWorkflow(LifecycleDeps deps, LifecycleSettings lifecycle,
                                 RolloutSettings settings);

// burn-in (rerun_burn_in): drain (as gpu_flag_drain's) -> burn_in (a resident task carrying the
// quick check's plan, written once before the agent hears of it; waits up to the quick check's
// timeout for the service's verdict on the agent's result; passed: the flag is cleared by
// "service"; judged failed: an rma_candidate event, the run ends, the node stays drained under
// the open flag) -> release (as gpu_flag_release's). Failures (agent_silent, burn_in_not_run,
// burn_in_cancelled) leave the node drained and the flag open for an operator. Context:
// "flag_id", "node_id", "drain", "burn_in" {"task_id", "requested_at", "reported_at"}.
WorkflowDef gpuFlagBurnInWorkflow(LifecycleDeps deps, LifecycleSettings lifecycle,
                                  RolloutSettings settings);

}  // namespace workflows

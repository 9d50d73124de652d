// The steps the health flags' runs share (private to this folder): the drain of a flag's node and
// its release, used by gpu_flag_drain, gpu_flag_release, gpu_flag_reset and gpu_flag_burn_in, and
// the shape of the runs that hand work to the node's resident agent (flag_action_run.cpp).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "../rollout/node_steps.hpp"
#include "inventory/gpu_flags.hpp"
#include "inventory/health/time.hpp"
#include "inventory/resident_tasks.hpp"
#include "inventory/types.hpp"

namespace workflows::flag_steps {

using rollout::Env;

inventory::health::Seconds secondsOf(TimePoint t);

// The run's "flag_id"; InvalidArgument "no_flag" without one.
common::Result<inventory::Id> flagIdOf(const StepContext& ctx);

// Records the action on the flag (once, only while it is open), then drains the node until idle
// -> `next_step`; ends the run when an operator decided the flag or another run has its action.
StepOutcome drainForFlag(const Env& env, StepContext& ctx, const std::string& next_step);

// An operator acknowledged or cleared the flag while the run waited: its resident task (if any)
// cancelled, the run ends saying who decided and `what_not` ("no reset").
StepOutcome operatorDecided(const Env& env, StepContext& ctx, const inventory::GpuFlag& flag,
                            std::optional<inventory::Id> task_id, const std::string& what_not);

// The drain a flag's own run starts with, going on to "drained" (gpu_flag_drain's next step).
StepOutcome drainForFlagStep(const Env& env, StepContext& ctx);

// The run gave up waiting for its resident task: the task cancelled (a late report is refused),
// the run failed with agent_silent naming `what` ("its burn-in").
StepOutcome agentSilent(const Env& env, StepContext& ctx, const inventory::ResidentTask& task,
                        const std::string& what);

// One of an action's own steps, with the side effects it declares (docs/workflows.md).
struct ActionStep {
  const char* name;
  StepOutcome (*run)(const Env&, StepContext&);
  std::vector<std::string> effects;
};

// drain (drainForFlag, then the first of `action`) -> `action` -> release (releaseFlagNode): a
// flag action run that hands work to the node's resident agent.
WorkflowDef flagActionWorkflow(const char* kind, LifecycleDeps deps, LifecycleSettings lifecycle,
                               RolloutSettings settings, const std::vector<ActionStep>& action);

// A cleared flag's node given back unless another flag holds it (gpu_flag_release's step).
StepOutcome releaseFlagNode(const Env& env, StepContext& ctx);

}  // namespace workflows::flag_steps

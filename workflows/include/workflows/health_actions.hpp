// Health flag -> action (docs/health.md, "Actions"): a flag whose action is `drain` or
// `rma_candidate` has the node that holds its GPU drained through the scheduler hook (the
// rollouts' drain: generic webhook, Slurm or Kubernetes format). The fleet's gpu_health_upkeep
// run decides which flags need it (planFlagAction, pure) and starts one durable run per flag
// (gpu_flag_drain, subject "gpu_flag:<id>"); that run records the action on the flag
// (inventory::markFlagActionStarted, only while the flag is open) before it tells the scheduler,
// so a resumed or second replica neither drains twice nor skips the drain, and an operator who
// acknowledged or cleared the flag first is not overridden. When an operator clears a flag whose
// drain started, a gpu_flag_release run gives the node back to the scheduler unless another flag
// still holds it. A reset_at_idle flag gets a gpu_flag_reset run: drain until idle, the GPU reset
// by the node's resident agent (a resident task, its intent), a reading that shows no remap
// pending, then the flag cleared by the service and the node given back. A rerun_burn_in flag gets
// a gpu_flag_burn_in run: drain until idle, the quick check's plan run by the resident agent on
// the node as it is (no reboot), the service's verdict: passed, the flag cleared and the node
// given back; failed, the GPU an RMA candidate and the node kept drained.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/result.hpp"
#include "inventory/database.hpp"
#include "inventory/gpu_flags.hpp"
#include "inventory/health/flag.hpp"
#include "inventory/resident_tasks.hpp"
#include "inventory/types.hpp"
#include "workflows/engine.hpp"

namespace workflows {

inline constexpr const char* kGpuFlagDrain = "gpu_flag_drain";
inline constexpr const char* kGpuFlagRelease = "gpu_flag_release";
inline constexpr const char* kGpuFlagReset = "gpu_flag_reset";
inline constexpr const char* kGpuFlagBurnIn = "gpu_flag_burn_in";
// The flag a GPU gets for failing a rerun_burn_in flag's resident burn-in (rma_candidate).
inline constexpr const char* kBurnInRerunFailed = "burn_in.rerun_failed";

std::string flagDrainSubject(inventory::Id flag_id);  // "gpu_flag:12"

// What the service does about a flag now (pure).
enum class FlagActionPlan {
  kNone,            // watch, not open (an operator acknowledged or cleared it), or already started
  kDrain,           // start the flag's drain run (drain, rma_candidate)
  kResetAtIdle,     // start the flag's reset run (reset_at_idle)
  kRerunBurnIn,     // start the flag's burn-in run (rerun_burn_in)
  kBurnedInLately,  // rerun_burn_in, but the node's last burn-in is recent: left for an operator
  kNoNode,          // an action, but the flag names no node (the GPU's node was unknown)
  kNodeOut,         // an action, but the node is already out of service
};

// The actions that take the flag's node from the scheduler (drain, rma_candidate, reset_at_idle,
// rerun_burn_in): clearing such a flag gives the node back.
bool actionDrainsNode(const std::string& action);

// `node_state`: the lifecycle state of the flag's node (empty when unknown). A node that is
// decommissioning, decommission_failed or retired is out of service and is not drained again.
// `burned_in_lately`: the node had a judged burn-in within the cooldown (HealthUpkeepOptions):
// another would most likely pass again while the rule still sees what it sees, so the flag waits
// for an operator instead of draining the node once more.
FlagActionPlan planFlagAction(const inventory::GpuFlag& flag, const std::string& node_state,
                              bool burned_in_lately = false);

// What a flag's drain run does once it has tried to record the action on the flag (pure):
// `flag` as read after markFlagActionStarted.
enum class FlagDrainDecision {
  kDrain,            // the flag is open and the action is this run's: tell the scheduler
  kOperatorDecided,  // acknowledged or cleared: nothing is sent
  kOtherRun,         // another run has the action: nothing is sent by this one
};
FlagDrainDecision decideFlagDrain(const inventory::GpuFlag& flag, inventory::Id run_id);

// The reason the scheduler and the node's timeline get:
// "drained: flag nvidia.xid48_dbe on GPU GPU-1: XID 48 (double-bit ECC error) ...".
std::string flagDrainReason(const inventory::GpuFlag& flag);

// What a cleared flag's release run does about the node the flag drained (pure): `holding`, the
// other flags that hold the node drained; `node_state`, its lifecycle state.
enum class FlagReleaseDecision {
  kUndrain,    // nothing else holds it: give the node back to the scheduler
  kStillHeld,  // another flag holds it drained: its own clearing gives it back
  kNodeOut,    // decommissioning, decommission_failed or retired: not given back
  kNothing,    // not cleared, never drained, or already released
};
FlagReleaseDecision decideFlagRelease(const inventory::GpuFlag& flag,
                                      const std::vector<inventory::Id>& holding,
                                      const std::string& node_state);

// A reset or burn-in run's wait for its resident task (pure): `deadline`, when the agent must
// have reported by.
enum class ResidentTaskDecision {
  kWait,       // not reported yet
  kTimedOut,   // not reported by the deadline: the agent is silent
  kFailed,     // the task failed (a reset refused; a burn-in not run, or judged failed)
  kCancelled,  // cancelled (an operator decided the flag while the run waited)
  kCheck,      // succeeded: a reset's next reading decides; a burn-in passed
};
ResidentTaskDecision decideResidentTask(const inventory::ResidentTask& task, TimePoint now,
                                        TimePoint deadline);

// The reset run's check of the GPU after its reset (pure): `reset_at`, when the agent finished the
// reset on the node's clock (the clock its readings are dated on); a reading sampled at or after
// it decides.
enum class ResetCheckDecision {
  kWaitForReading,  // no reading since the reset yet
  kTimedOut,        // none by the deadline
  kStillPending,    // the reading still reports a remap pending: the reset did not apply it
  kCleared,         // no remap pending: the flag is resolved
};
ResetCheckDecision decideResetCheck(const inventory::GpuRemapState& gpu,
                                    inventory::health::Seconds reset_at, TimePoint now,
                                    TimePoint deadline);

// A judged-failed resident burn-in's verdict (agent::toJson(Verdict)) -> one flag draft per GPU it
// names (kBurnInRerunFailed, critical, rma_candidate; the GPU's first failure's message as the
// reason, raised in `node_id` at `at`). Failures naming no GPU (the agent's own error) give none.
std::vector<inventory::health::FlagDraft> burnInFailureFlags(const nlohmann::json& verdict,
                                                             inventory::Id node_id,
                                                             inventory::Id task_id,
                                                             inventory::health::Seconds at);

struct FlagActionPass {
  int started = 0;           // drain, reset and burn-in runs started (or found open) this pass
  int skipped = 0;           // actions without a node or with the node out of service
  int waiting_operator = 0;  // rerun_burn_in flags of nodes burned in lately (kBurnedInLately)
  int releases = 0;          // release runs started (or found open) for cleared drain flags
};

using StartRunFn = std::function<common::Result<StartResult>(const StartRequest&)>;

// Lists the open flags, plans each, and starts the drain run of each kDrain (the reset run of each
// kResetAtIdle, the burn-in run of each kRerunBurnIn) (the open run of a kind and subject is one
// run, so a pass repeated after a crash starts none twice); then starts
// the release run (gpu_flag_release) of each cleared flag that drained its node and is not
// released yet. `now` and `burn_in_cooldown` (the engine's clock) decide kBurnedInLately.
common::Result<FlagActionPass> startFlagActions(inventory::Database& db, const StartRunFn& start,
                                                TimePoint now, Duration burn_in_cooldown);

}  // namespace workflows

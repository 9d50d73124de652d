// Health flag -> action (docs/health.md, "Actions"): a flag whose action is `drain` or
// `rma_candidate` has the node that holds its GPU drained through the scheduler hook (the
// rollouts' drain: generic webhook, Slurm or Kubernetes format). The fleet's gpu_health_upkeep
// run decides which flags need it (planFlagAction, pure) and starts one durable run per flag
// (gpu_flag_drain, subject "gpu_flag:<id>"); that run records the action on the flag
// (inventory::markFlagActionStarted, only while the flag is open) before it tells the scheduler,
// so a resumed or second replica neither drains twice nor skips the drain, and an operator who
// acknowledged or cleared the flag first is not overridden. When an operator clears a flag whose
// drain started, a gpu_flag_release run gives the node back to the scheduler unless another flag
// still holds it. reset_at_idle and rerun_burn_in stay pending on the flag (no automation).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "inventory/database.hpp"
#include "inventory/gpu_flags.hpp"
#include "inventory/types.hpp"
#include "workflows/engine.hpp"

namespace workflows {

inline constexpr const char* kGpuFlagDrain = "gpu_flag_drain";
inline constexpr const char* kGpuFlagRelease = "gpu_flag_release";

std::string flagDrainSubject(inventory::Id flag_id);  // "gpu_flag:12"

// What the service does about a flag now (pure).
enum class FlagActionPlan {
  kNone,           // watch, not open (an operator acknowledged or cleared it), or already started
  kDrain,          // start the flag's drain run (drain, rma_candidate)
  kPendingManual,  // reset_at_idle, rerun_burn_in: left open for an operator (no automation)
  kNoNode,         // a drain action, but the flag names no node (the GPU's node was unknown)
  kNodeOut,        // a drain action, but the node is already out of service
};

// `node_state`: the lifecycle state of the flag's node (empty when unknown). A node that is
// decommissioning, decommission_failed or retired is out of service and is not drained again.
FlagActionPlan planFlagAction(const inventory::GpuFlag& flag, const std::string& node_state);

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

struct FlagActionPass {
  int started = 0;         // drain runs started (or found open) this pass
  int pending_manual = 0;  // open reset_at_idle / rerun_burn_in flags
  int skipped = 0;         // drain actions without a node or with the node out of service
  int releases = 0;        // release runs started (or found open) for cleared drain flags
};

using StartRunFn = std::function<common::Result<StartResult>(const StartRequest&)>;

// Lists the open flags, plans each, and starts the drain run of each kDrain (the open run of a
// kind and subject is one run, so a pass repeated after a crash starts none twice); then starts
// the release run (gpu_flag_release) of each cleared flag that drained its node and is not
// released yet.
common::Result<FlagActionPass> startFlagActions(inventory::Database& db, const StartRunFn& start);

}  // namespace workflows

// Flashing a node's components one at a time, as a resumable state machine kept in the run's
// context. Each component goes: intent (recorded in the database, fenced by the run's lease,
// before the BMC is asked) -> task (SimpleUpdate, or a multipart push of the stored file where
// the package says multipart_push and the BMC advertises MultipartHttpPushUri; followed; an
// update already running for the target is adopted, never started twice) -> apply (nothing, a host
// reset, or an AC/aux power cycle of the chassis, as the package says) -> verify (FirmwareInventory
// re-read: every member the component covers must report the new version; a task that reported
// success while the version did not change is a failure).
//
//   data[key]: {"index": i, "done": [{"component", "from", "to", "at"}],
//               "current": {"targets", "method", "intent_at", "task", "started_at", "completed_at",
//                           "off_at", "applied_at"}}
#pragma once

#include <string>
#include <vector>

#include "component_plan.hpp"
#include "rollout_env.hpp"

namespace workflows::rollout {

// One move of the state machine under data()[key]. Returns nullopt when every component is
// done (the caller goes on), else the outcome of this execution (a wait, a retry, a failure).
std::optional<StepOutcome> flashComponents(const Env& env, StepContext& ctx, const char* key,
                                           const std::vector<ComponentUpdate>& components);

// The components of data()[key] that were touched (an intent recorded): what a rollback takes
// back.
std::vector<ComponentUpdate> touchedComponents(const nlohmann::json& progress,
                                               const std::vector<ComponentUpdate>& components);

}  // namespace workflows::rollout

// What the decommission steps share (private to this folder): the rollout's environment (BMC
// access, time scale, the drain hook), the decommission's settings, and the keys of the run's
// context.
//
// The run's context (ctx.data()):
//   "decommission_id"   set by the API when it starts the run
//   "base_url", "bmc_address", "bmc_mac", "system_path", "chassis_path", "vendor", "profile"
//                       copied from the node's lifecycle run by drain, so the lifecycle's helpers
//                       reach the BMC the same way
//   "drain"             {"requested_at", "idle_at"} (rollout::drainUntilIdle)
//   "wipe"              {"plan": {"oob": [drive], "in_band": [drive]}, "task_id", "boots",
//                        "booted_at"}   drive: {"odata_id", "serial", "model", "manufacturer",
//                        "media_type", "sanitization_types", "type", "nist_level", "reason"}
//   "drives"            {"index": i, "done": [serial], "current": {"serial", "known_tasks",
//                        "intent_at", "task", "started_at", "completed_at"}}
//   "platform"          {"bios", "system_decommission", "manager_reset", "account", "secrets"}:
//                       what each reset did ("done", "not offered: ...")
//   "failure"           set by the engine before fail_decommission
#pragma once

#include "../rollout/rollout_env.hpp"
#include "common/result.hpp"
#include "inventory/decommissions.hpp"
#include "workflows/decommission/workflow.hpp"

namespace workflows::decommission {

struct Env {
  rollout::Env roll;
  DecommissionSettings settings;

  const lifecycle::Env& life() const { return roll.life; }
  inventory::Database& db() const { return *roll.life.deps.db; }
  TimePoint after(TimePoint now, Duration real_world) const { return roll.after(now, real_world); }
};

// data "decommission_id"; InvalidArgument "no_decommission" when the run has none.
common::Result<inventory::Id> decommissionIdOf(const StepContext& ctx);
common::Result<inventory::Decommission> decommissionOf(const Env& env, const StepContext& ctx);

// "decommission 12 (rma)" for scheduler reasons and timeline messages.
std::string decommissionLabel(const inventory::Decommission& d);

// drain -> wipe_boot -> wipe_result -> drives -> platform_reset -> certify; fail_decommission.
StepOutcome drainStep(const Env& env, StepContext& ctx);
StepOutcome wipeBootStep(const Env& env, StepContext& ctx);
StepOutcome wipeResultStep(const Env& env, StepContext& ctx);
StepOutcome drivesStep(const Env& env, StepContext& ctx);
StepOutcome platformResetStep(const Env& env, StepContext& ctx);
StepOutcome certifyStep(const Env& env, StepContext& ctx);
StepOutcome failDecommissionStep(const Env& env, StepContext& ctx);

}  // namespace workflows::decommission

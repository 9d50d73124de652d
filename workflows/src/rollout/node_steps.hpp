// The steps of a node's firmware update (node_firmware_update), strung together in
// node_update_workflow.cpp:
//
//   drain -> flash -> quick_check -> undrain            (any failure -> recover)
//   recover: nothing changed -> undrain (the node failed, untouched); changed and every touched
//            component has a package of its previous version -> rollback_flash -> undrain;
//            otherwise (or a rollback that fails) -> the node is quarantined with the reason.
#pragma once

#include <optional>

#include "inventory/images.hpp"
#include "inventory/types.hpp"
#include "rollout_env.hpp"

namespace workflows::rollout {

StepOutcome drainStep(const Env& env, StepContext& ctx);
StepOutcome flashStep(const Env& env, StepContext& ctx);
StepOutcome quickCheckStep(const Env& env, StepContext& ctx);
StepOutcome undrainStep(const Env& env, StepContext& ctx);
StepOutcome recoverStep(const Env& env, StepContext& ctx);
StepOutcome rollbackFlashStep(const Env& env, StepContext& ctx);

// The campaign's record of this node: state (succeeded, failed, rolled_back, rollback_failed)
// with the reason and evidence, and a wake-up for the campaign's controller run.
common::Result<void> reportNodeResult(const Env& env, StepContext& ctx, const std::string& state,
                                      const std::string& reason, const nlohmann::json& detail);

// The drain itself, for every workflow that takes a node out of service (the firmware update, a
// decommission): asks the scheduler (data "drain": {"requested_at", "idle_at"}) until it says the
// node is idle -> next_step, or the drain times out.
StepOutcome drainUntilIdle(const Env& env, StepContext& ctx, const std::string& reason,
                           const std::string& next_step);

// The short burn-in a quick check runs (also a rerun_burn_in flag's resident burn-in): the
// profile's plan (or the default) with every test cut to `seconds`.
nlohmann::json quickPlan(const std::optional<inventory::HardwareProfile>& profile, int seconds);
// The GPUs the verdict expects: the profile's figure, else the node's inventory.
int expectedGpus(const std::optional<inventory::HardwareProfile>& profile,
                 const inventory::Node& node);

// Tells the scheduler (when a drain hook is configured). Ok(true) when it says the node is idle.
common::Result<bool> tellScheduler(const Env& env, StepContext& ctx, bool drain,
                                   const std::string& reason);

}  // namespace workflows::rollout

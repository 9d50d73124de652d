// What the rollout workflows share (private to this folder): the lifecycle's environment (BMC
// access, time scale, boot settings), the rollout's own settings, and the keys of a node run's
// context.
//
// A node run's context (ctx.data()), written by the controller when it starts the run:
//   "campaign_id", "node_id", "controller_run" (the campaign's run, signalled at the end)
//   "base_url", "bmc_address", "bmc_mac", "system_path", "chassis_path", "vendor", "profile"
//                         copied from the node's lifecycle run, so the lifecycle's helpers work
//   "components"          [{"component", "rule", "from", "to", "image_uri", "apply", "force",
//                           "install": {"method", "sha256", "size", "simple_update_fallback"},
//                           "rollback": {"version", "image_uri", "install"} | null}]
//                         in flash order
//   "quick_check"         true when the node runs the quick check after its update
// and by the steps:
//   "drain"               {"requested_at", "idle_at"}
//   "flash"               progress of the update (flash_components.hpp); "rollback_flash" the same
//                         for a rollback
//   "check"               {"task_id", "booted_at"}
//   "failure"             set by the engine before the recover step
#pragma once

#include <memory>

#include "../lifecycle/lifecycle_steps.hpp"
#include "workflows/rollout.hpp"

namespace workflows::rollout {

struct Env {
  lifecycle::Env life;
  RolloutSettings settings;
  StartRun start_run;  // the controller's: starts node runs

  TimePoint after(TimePoint now, Duration real_world) const { return life.after(now, real_world); }
};

// The environment of a node-level workflow that reuses the rollout steps (no controller, so no
// start_run).
inline std::shared_ptr<const Env> makeNodeEnv(LifecycleDeps deps, LifecycleSettings lifecycle,
                                              RolloutSettings settings) {
  return std::make_shared<const Env>(
      Env{lifecycle::Env{std::move(deps), std::move(lifecycle)}, std::move(settings), {}});
}

// data()[key] as an object, created when missing.
nlohmann::json& section(StepContext& ctx, const char* key);

// Waits `real_world` (scaled), but no longer than `deadline`.
StepOutcome pollUntil(const Env& env, const StepContext& ctx, Duration real_world,
                      TimePoint deadline, std::string waiting_for, std::string message);

}  // namespace workflows::rollout

// Keeping the GPU health history in shape (docs/health.md): one durable run for the fleet
// ("gpu_health_upkeep", subject "fleet") makes the coming days' partitions, rolls up the hours
// and days that ended, and drops partitions past retention, then waits `interval` and does it
// again. One run, whatever the number of replicas: the engine's lease makes it one at a time.
#pragma once

#include "common/result.hpp"
#include "inventory/database.hpp"
#include "inventory/health/retention.hpp"
#include "workflows/clock.hpp"
#include "workflows/engine.hpp"
#include "workflows/health_actions.hpp"

namespace workflows {

inline constexpr const char* kGpuHealthUpkeep = "gpu_health_upkeep";

struct HealthUpkeepOptions {
  Duration interval{300000};  // how often the upkeep runs (roll-ups lag at most this much)
  inventory::health::RetentionSettings retention;
  // Starts the drain runs of flags that need one (workflows/health_actions.hpp); empty: the
  // upkeep raises flags but starts no action.
  StartRunFn start_run;
  // A node burned in (a rerun_burn_in flag's resident burn-in, judged) this recently gets no
  // second one for a new rerun_burn_in flag: the flag waits for an operator (health_actions.hpp).
  Duration burn_in_cooldown{std::chrono::hours{24 * 7}};
  // The health history's "now" (the days rolled up, the flags' evaluation); null: the engine's
  // clock. Sped up only for simulated fleets; the interval stays the engine's.
  std::shared_ptr<Clock> health_clock;
};

WorkflowDef gpuHealthUpkeepWorkflow(inventory::DatabasePtr db, HealthUpkeepOptions options);

// Starts the fleet's run when none is open (every replica may call it; one run results).
common::Result<void> ensureHealthUpkeepRun(Engine& engine);

}  // namespace workflows

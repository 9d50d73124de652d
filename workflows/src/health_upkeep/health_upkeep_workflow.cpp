#include "workflows/health_upkeep.hpp"

#include <chrono>

#include "inventory/gpu_health.hpp"
#include "inventory/health/time.hpp"
#include "workflows/fleet_run.hpp"
#include "workflows/health_flags.hpp"

namespace workflows {
namespace {

StepOutcome maintain(inventory::Database& db, const HealthUpkeepOptions& options,
                     StepContext& ctx) {
  const auto now = std::chrono::time_point_cast<std::chrono::seconds>(
      options.health_clock ? options.health_clock->now() : ctx.now());
  auto done = inventory::maintainHealthHistory(db, now, options.retention);
  if (!done) return StepOutcome::retry("inventory_error", done.error().message);
  // The flags: GPUs with a reading since the last evaluation (a day back on the first).
  namespace h = inventory::health;
  h::Seconds since = now - std::chrono::hours{24};
  if (auto last = ctx.data().find("flags_evaluated_at");
      last != ctx.data().end() && last->is_string()) {
    if (auto t = h::parseUtc(last->get<std::string>())) since = *t;
  }
  auto flags = evaluateHealthFlags(db, h::defaultPolicy(), since, now);
  if (!flags) return StepOutcome::retry("inventory_error", flags.error().message);
  // The actions: a drain or reset run per open flag whose action has not started.
  FlagActionPass actions;
  if (options.start_run) {
    auto started = startFlagActions(db, options.start_run, ctx.now(), options.burn_in_cooldown);
    if (!started) return StepOutcome::retry("inventory_error", started.error().message);
    actions = *started;
  }
  ctx.data()["flags_evaluated_at"] = h::formatUtc(now);
  ctx.data()["last"] = {{"partitions_created", done->created},
                        {"partitions_dropped", done->dropped},
                        {"days_compacted", done->compaction.compacted},
                        {"readings_compacted", done->compaction.readings},
                        {"flags_gpus", flags->gpus},
                        {"flags_raised", flags->raised.raised.size()},
                        {"flag_actions", actions.started},
                        {"flag_actions_skipped", actions.skipped},
                        {"flags_waiting_operator", actions.waiting_operator}};
  return StepOutcome::waitUntil(
      ctx.now() + options.interval, "upkeep_interval",
      "health history kept: " + std::to_string(done->created.size()) + " partition(s) made, " +
          std::to_string(done->dropped.size()) + " dropped, " +
          std::to_string(done->compaction.compacted.size()) + " day(s) compacted; " +
          std::to_string(flags->gpus) + " GPU(s) evaluated, " +
          std::to_string(flags->raised.raised.size()) + " flag(s) raised; " +
          std::to_string(actions.started) + " drain/reset/burn-in run(s), " +
          std::to_string(actions.waiting_operator) + " flag(s) of nodes burned in lately");
}

}  // namespace

WorkflowDef gpuHealthUpkeepWorkflow(inventory::DatabasePtr db, HealthUpkeepOptions options) {
  return fleetRunWorkflow(
      kGpuHealthUpkeep, "maintain",
      [db, options](StepContext& ctx) { return maintain(*db, options, ctx); }, Duration(5000),
      Duration(300000));
}

common::Result<void> ensureHealthUpkeepRun(Engine& engine) {
  return ensureFleetRun(engine, kGpuHealthUpkeep);
}

}  // namespace workflows

// The health history's periodic upkeep, in the order that keeps each step's input ready.
#include "inventory/gpu_health.hpp"

namespace inventory {

common::Result<HealthMaintenanceRun> maintainHealthHistory(
    Database& db, health::Seconds now, const health::RetentionSettings& retention, int days_ahead) {
  HealthMaintenanceRun run;
  const health::Days today = health::dayOf(now);
  PROV_ASSIGN(run.created,
              ensureHealthPartitions(db, today, today + std::chrono::days{days_ahead}));
  PROV_ASSIGN(run.rollup, rollUpHealth(db, now));
  PROV_ASSIGN(run.dropped, applyHealthRetention(db, today, retention));
  PROV_ASSIGN(run.compaction, compactHealthHistory(db, today, retention));
  return run;
}

}  // namespace inventory

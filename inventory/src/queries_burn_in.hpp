// SQL of burn-in results: one append-only row per GPU and test.
#pragma once

#include "db.hpp"

// Columns read by resultFromRow() (burn_in_results.cpp).
#define INVENTORY_RESULT_COLUMNS                                                              \
  "id, task_id, node_id, batch, gpu_serial, gpu_uuid, gpu_model, test, value, unit, nominal," \
  " threshold, batch_median, robust_z, passed, reason, iso8601(measured_at)"

namespace inventory::detail {

// An empty measured_at means "now" (the database clock).
constexpr Query kInsertResult{"insert_burn_in_result", R"(
  INSERT INTO burn_in_results (task_id, node_id, batch, gpu_serial, gpu_uuid, gpu_model, test,
                               value, unit, nominal, threshold, batch_median, robust_z, passed,
                               reason, measured_at)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15,
          coalesce(nullif($16, '')::timestamptz, now())))"};
constexpr Query kSelectPeerValues{"select_burn_in_peer_values", R"(
  SELECT value FROM burn_in_results
   WHERE batch = $1 AND gpu_model = $2 AND test = $3 AND task_id <> $4
   ORDER BY id)"};
constexpr Query kSelectGpuHistory{"select_gpu_burn_in_history",
                                  "SELECT " INVENTORY_RESULT_COLUMNS
                                  " FROM burn_in_results WHERE gpu_serial = $1 ORDER BY id DESC"};
constexpr Query kSelectTaskResults{"select_task_burn_in_results",
                                   "SELECT " INVENTORY_RESULT_COLUMNS
                                   " FROM burn_in_results WHERE task_id = $1 ORDER BY id"};

}  // namespace inventory::detail

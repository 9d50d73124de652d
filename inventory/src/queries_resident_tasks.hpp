// SQL of the resident agent's tasks (migrations/0020_resident_tasks.sql).
#pragma once

#include "db.hpp"

#define INVENTORY_RESIDENT_TASK_COLUMNS                                                    \
  "id, node_id, kind, gpu_serial, flag_id, run_id, state, message, iso8601(created_at),"   \
  " iso8601(delivered_at), iso8601(finished_at), iso8601(coalesce(done_at, finished_at))," \
  " spec_json, verdict_json"

namespace inventory::detail {

// $1 node, $2 kind, $3 serial, $4 flag, $5 run, $6 now, $7 spec. An earlier attempt's row wins.
constexpr Query kQueueResidentTask{"queue_resident_task", R"(
  WITH ins AS (
    INSERT INTO resident_tasks (node_id, kind, gpu_serial, flag_id, run_id, created_at, spec_json)
    VALUES ($1, $2, $3, $4, $5, $6::timestamptz, $7)
    ON CONFLICT (run_id, kind, gpu_serial) DO NOTHING
    RETURNING )" INVENTORY_RESIDENT_TASK_COLUMNS R"()
  SELECT * FROM ins
  UNION ALL
  SELECT )" INVENTORY_RESIDENT_TASK_COLUMNS R"( FROM resident_tasks
   WHERE run_id = $5 AND kind = $2 AND gpu_serial = $3 AND NOT EXISTS (SELECT 1 FROM ins))"};
constexpr Query kDeliverResidentTasks{"deliver_resident_tasks", R"(
  UPDATE resident_tasks
     SET state = CASE WHEN state = 'pending' THEN 'delivered' ELSE state END,
         delivered_at = coalesce(delivered_at, $2::timestamptz)
   WHERE node_id = $1 AND finished_at IS NULL
  RETURNING )" INVENTORY_RESIDENT_TASK_COLUMNS};
// $1 task, $2 node, $3 state, $4 message, $5 now, $6 done_at (the agent's clock, or NULL), $7 the
// service's verdict (a burn-in, or NULL): only an open task of that node.
constexpr Query kFinishResidentTask{"finish_resident_task", R"(
  UPDATE resident_tasks
     SET state = $3, message = $4, finished_at = $5::timestamptz, done_at = $6::timestamptz,
         verdict_json = $7, delivered_at = coalesce(delivered_at, $5::timestamptz)
   WHERE id = $1 AND node_id = $2 AND finished_at IS NULL
  RETURNING )" INVENTORY_RESIDENT_TASK_COLUMNS};
constexpr Query kCancelResidentTask{"cancel_resident_task", R"(
  UPDATE resident_tasks SET state = 'cancelled', message = $2, finished_at = $3::timestamptz
   WHERE id = $1 AND finished_at IS NULL)"};
constexpr Query kGetResidentTask{"get_resident_task", "SELECT " INVENTORY_RESIDENT_TASK_COLUMNS
                                                      " FROM resident_tasks WHERE id = $1"};
constexpr Query kListResidentTasks{"list_resident_tasks", "SELECT " INVENTORY_RESIDENT_TASK_COLUMNS
                                                          R"( FROM resident_tasks
   WHERE node_id = $1 ORDER BY id DESC LIMIT 200)"};
// The node's burn-in still open (another flag's run may wait on it), the newest.
constexpr Query kOpenBurnIn{"open_resident_burn_in", "SELECT " INVENTORY_RESIDENT_TASK_COLUMNS R"(
    FROM resident_tasks
   WHERE node_id = $1 AND kind = 'burn_in' AND finished_at IS NULL ORDER BY id DESC LIMIT 1)"};
// When the node's last judged burn-in finished (passed or failed; NULL when never).
constexpr Query kLastJudgedBurnIn{"last_judged_burn_in", R"(
  SELECT extract(epoch FROM max(finished_at))::bigint FROM resident_tasks
   WHERE node_id = $1 AND kind = 'burn_in' AND verdict_json IS NOT NULL)"};
constexpr Query kGpuRemapState{"gpu_remap_state", R"(
  SELECT extract(epoch FROM last_sample)::bigint, remap_pending
    FROM gpu_counter_state WHERE gpu_serial = $1)"};

}  // namespace inventory::detail

// SQL of agent tasks: what a booted node's agent is there to do, and its lifecycle.
#pragma once

#include "db.hpp"

// Columns read by taskFromRow() (agent_task_rows.cpp).
#define INVENTORY_TASK_COLUMNS                                                                   \
  "id, node_id, kind, state, spec::text, batch, expected_gpus, coalesce(facts::text, ''),"       \
  " coalesce(progress::text, ''), coalesce(verdict::text, ''), created_by, iso8601(created_at)," \
  " iso8601(registered_at), iso8601(started_at), iso8601(finished_at)"

namespace inventory::detail {

// agent_tasks_open_key refuses a second open task for the node.
constexpr Query kInsertTask{"insert_agent_task", R"(
  INSERT INTO agent_tasks (node_id, kind, spec, batch, expected_gpus, created_by)
  VALUES ($1, $2, $3::jsonb, $4, $5, $6)
  RETURNING id)"};
constexpr Query kSelectTask{"select_agent_task",
                            "SELECT " INVENTORY_TASK_COLUMNS " FROM agent_tasks WHERE id = $1"};
// Serialises the transitions of one task.
constexpr Query kLockTask{
    "lock_agent_task",
    "SELECT state, node_id, kind, batch FROM agent_tasks WHERE id = $1 FOR UPDATE"};
constexpr Query kSelectOpenTaskOfNode{"select_open_task_of_node",
                                      "SELECT " INVENTORY_TASK_COLUMNS
                                      " FROM agent_tasks WHERE node_id = $1"
                                      " AND state IN ('pending', 'running')"};
constexpr Query kSelectTasksOfNode{"select_tasks_of_node",
                                   "SELECT " INVENTORY_TASK_COLUMNS
                                   " FROM agent_tasks WHERE node_id = $1 ORDER BY id DESC"};
constexpr Query kSetTaskFacts{"set_agent_task_facts",
                              "UPDATE agent_tasks SET facts = $2::jsonb, registered_at = now() "
                              "WHERE id = $1"};
constexpr Query kStartTask{"start_agent_task",
                           "UPDATE agent_tasks SET state = 'running', started_at = now() "
                           "WHERE id = $1"};
constexpr Query kSetTaskProgress{"set_agent_task_progress",
                                 "UPDATE agent_tasks SET progress = $2::jsonb WHERE id = $1"};
constexpr Query kCancelTask{"cancel_agent_task",
                            "UPDATE agent_tasks SET state = 'cancelled', finished_at = now() "
                            "WHERE id = $1"};
constexpr Query kFinishTask{"finish_agent_task",
                            "UPDATE agent_tasks SET state = $2, verdict = $3::jsonb, "
                            "finished_at = now() WHERE id = $1"};

}  // namespace inventory::detail

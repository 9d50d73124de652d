// Shared by the workflow_runs*.cpp sources: rows to records, times to parameters, events to the
// JSON array the insert statements read, and the errors they report.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "db.hpp"
#include "inventory/workflow_runs.hpp"

namespace inventory::detail {

// Microseconds since the epoch: how times travel as statement parameters.
std::int64_t micros(WallTime t);
WallTime fromMicros(std::int64_t us);

// A PostgreSQL array literal ("{1,2,3}") for a bigint[] parameter.
std::string bigintArray(const std::vector<std::int64_t>& values);

WorkflowRun runFromRow(const pqxx::row& row);
WorkflowEventRecord workflowEventFromRow(const pqxx::row& row);

// [{"at", "actor", "step", "kind", "message", "detail", "duration_ms"}, ...] for
// INVENTORY_WF_INSERT_EVENTS. `at_time` of an event left at the epoch becomes `now`.
std::string eventsJson(const std::vector<WorkflowEventRecord>& events, WallTime now);

common::Error runNotFound(Id run_id);

}  // namespace inventory::detail

// Storing an agent's result for a wipe task (what POST .../tasks/{id}/result does for one): the
// raw report kept verbatim as evidence, every device judged (wipe_judge.hpp) and recorded, the
// task finished with the verdict. The decommission run is woken by the caller.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "agent/protocol.hpp"
#include "common/result.hpp"
#include "inventory/agent_tasks.hpp"
#include "workflows/clock.hpp"
#include "workflows/decommission/wipe_judge.hpp"

namespace workflows::decommission {

struct WipeTaskOutcome {
  inventory::Id decommission_id = 0;
  std::string state;    // "passed", "failed" or "error" (the agent could not wipe at all)
  std::string summary;  // one line for the node's timeline
  // {"failures": [{"serial", "what"}], "devices": n, "evidence": name, "error": text}
  nlohmann::json verdict;
};

// The evidence name of a wipe task's raw report.
std::string wipeReportEvidenceName(inventory::Id task_id);

// `criteria.expected_gpus` 0: the task's expected GPU count. Errors: InvalidArgument
// "invalid_result" (field "wipe") when a result without an error carries no wipe report;
// Conflict "no_decommission" when the node has no running decommission; the inventory's
// "task_not_open" when the task already finished.
common::Result<WipeTaskOutcome> recordWipeResult(inventory::Database& db,
                                                 const inventory::AgentTask& task,
                                                 const agent::TaskResult& result,
                                                 const std::string& raw_body, WipeCriteria criteria,
                                                 TimePoint at);

}  // namespace workflows::decommission

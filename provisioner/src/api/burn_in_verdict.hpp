// Reaching a burn-in verdict for a finished task: the plan and facts it ran with, its batch peers
// from the inventory, and the result rows to store.
#pragma once

#include <string>
#include <vector>

#include "agent/protocol.hpp"
#include "agent/verdict.hpp"
#include "common/result.hpp"
#include "inventory/agent_tasks.hpp"

namespace provisioner::api {

struct TaskVerdict {
  agent::Verdict verdict;
  std::string state;    // "passed", "failed" or "error"
  std::string summary;  // one line for the node's timeline
  std::vector<inventory::BurnInResultRecord> records;
};

common::Result<TaskVerdict> judgeTask(inventory::Database& db, const inventory::AgentTask& task,
                                      const agent::TaskResult& result);

// A resident burn-in's result (inventory::kResidentBurnIn), judged as any burn-in against the
// plan in the task's `spec_json` ({"plan", "expected_gpus"}), the node's own GPUs its only peers
// (as a campaign's quick check). No result rows: the verdict is kept on the task.
common::Result<TaskVerdict> judgeResidentBurnIn(const std::string& spec_json,
                                                const agent::Facts& facts,
                                                const agent::TaskResult& result);

}  // namespace provisioner::api

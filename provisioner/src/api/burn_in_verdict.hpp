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

}  // namespace provisioner::api

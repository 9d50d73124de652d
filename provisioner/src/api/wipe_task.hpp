// The agent routes' part of a wipe task (contracts/decommission-wire.md): the plan sent with the
// task, and the report stored through workflows::decommission::recordWipeResult.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "agent/protocol.hpp"
#include "common/result.hpp"
#include "inventory/agent_tasks.hpp"
#include "routes.hpp"

namespace provisioner::api {

// The wire task for a stored task: the wipe plan for "wipe", the burn-in plan otherwise.
common::Result<agent::Task> wireTask(const inventory::AgentTask& task);

struct FinishedTask {
  std::string state;
  nlohmann::json verdict;
};

// A wipe task's result stored (raw body as evidence, devices judged and recorded, task finished).
common::Result<FinishedTask> finishWipeTask(const ApiContext& ctx, const inventory::AgentTask& task,
                                            const agent::TaskResult& result,
                                            const std::string& raw_body);

}  // namespace provisioner::api

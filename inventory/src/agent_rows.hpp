// Shared by the agent-task, boot-MAC and burn-in sources: reading task rows, locking a task for a
// transition, and recording boot MACs inside a caller's transaction.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "common/result.hpp"
#include "db.hpp"
#include "inventory/agent_tasks.hpp"

namespace inventory::detail {

AgentTask taskFromRow(const pqxx::row& row);
AgentTask readTask(Tx& tx, Id task_id);

// A task row locked for a transition.
struct LockedTask {
  Id id = 0;
  Id node_id = 0;
  std::string state;
  std::string kind;
  std::string batch;
  bool open() const { return state == "pending" || state == "running"; }
};
// NotFound "task_not_found".
common::Result<LockedTask> lockTask(Tx& tx, Id task_id);
common::Error taskNotOpen(const LockedTask& task);

// A normalised MAC and the index it had in the caller's list (for the error's field).
using BootMac = std::pair<std::string, std::size_t>;
// Normalises and sorts (so concurrent writers lock in one order). InvalidArgument "invalid_mac"
// naming "macs[i]".
common::Result<std::vector<BootMac>> normalizeBootMacs(const std::vector<std::string>& macs);
// Conflict "boot_mac_in_use" (field "macs[i]") when a MAC boots another node; with `conflicts`
// given, such MACs are listed there instead and the others are still recorded.
common::Result<void> insertBootMacs(Tx& tx, Id node_id, const std::vector<BootMac>& macs,
                                    const std::string& source,
                                    std::vector<std::string>* conflicts = nullptr);

}  // namespace inventory::detail

// Agent tasks: created for a node, registered and started by its agent, cancelled by people.
// Finishing (with results) is in burn_in_results.cpp.
#include "inventory/agent_tasks.hpp"

#include "agent_rows.hpp"
#include "catalog_values.hpp"
#include "db.hpp"
#include "node_rows.hpp"
#include "queries_agent_tasks.hpp"
#include "queries_agent_tokens.hpp"
#include "queries_nodes.hpp"
#include "values.hpp"

namespace inventory {
namespace {

using detail::Tx;

common::Result<void> validateSpec(const AgentTaskSpec& spec) {
  if (spec.kind != "burn_in" && spec.kind != "wipe") {
    return common::invalidArgument("invalid_kind", "task kind must be burn_in or wipe", "kind");
  }
  if (spec.expected_gpus < 0) {
    return common::invalidArgument("invalid_expected_gpus", "expected_gpus must not be negative",
                                   "expected_gpus");
  }
  return common::success();
}

std::string taskDetail(const detail::LockedTask& task) {
  return detail::JsonObject().add("task_id", task.id).add("kind", task.kind).str();
}

}  // namespace

common::Result<AgentTask> createAgentTask(Database& db, const AgentTaskSpec& spec,
                                          const std::string& actor) {
  PROV_TRY(validateSpec(spec));
  const std::string spec_json = spec.spec_json.empty() ? "{}" : spec.spec_json;
  return detail::withTransaction(db, "create_agent_task", [&](Tx& tx) -> common::Result<AgentTask> {
    if (tx.exec(detail::kNodeExists, spec.node_id).empty()) {
      return detail::nodeNotFound(spec.node_id);
    }
    PROV_TRY(detail::requireJson(spec_json, "spec"));
    Id task_id = detail::id(tx.exec(detail::kInsertTask, spec.node_id, spec.kind, spec_json,
                                    spec.batch, spec.expected_gpus, actor)[0][0]);
    detail::insertEvent(tx, spec.node_id, actor, "task_created",
                        spec.kind + " task " + std::to_string(task_id) + " created",
                        detail::JsonObject()
                            .add("task_id", task_id)
                            .add("kind", spec.kind)
                            .add("batch", spec.batch)
                            .str());
    return detail::readTask(tx, task_id);
  });
}

common::Result<AgentTask> getAgentTask(Database& db, Id task_id) {
  return detail::withRead(db, "get_agent_task", [&](Tx& tx) -> common::Result<AgentTask> {
    auto rows = tx.exec(detail::kSelectTask, task_id);
    if (rows.empty()) return detail::taskNotFound(task_id);
    return detail::taskFromRow(rows[0]);
  });
}

common::Result<std::optional<AgentTask>> openTaskForNode(Database& db, Id node_id) {
  return detail::withRead(db, "open_task_for_node",
                          [&](Tx& tx) -> common::Result<std::optional<AgentTask>> {
                            auto rows = tx.exec(detail::kSelectOpenTaskOfNode, node_id);
                            if (rows.empty()) return std::optional<AgentTask>();
                            return std::optional<AgentTask>(detail::taskFromRow(rows[0]));
                          });
}

common::Result<std::vector<AgentTask>> listTasksForNode(Database& db, Id node_id) {
  return detail::withRead(db, "list_tasks_for_node",
                          [&](Tx& tx) -> common::Result<std::vector<AgentTask>> {
                            std::vector<AgentTask> tasks;
                            for (const auto& row : tx.exec(detail::kSelectTasksOfNode, node_id)) {
                              tasks.push_back(detail::taskFromRow(row));
                            }
                            return tasks;
                          });
}

common::Result<AgentTask> recordRegistration(Database& db, Id task_id,
                                             const std::string& facts_json,
                                             const std::vector<std::string>& nic_macs) {
  PROV_ASSIGN(auto macs, detail::normalizeBootMacs(nic_macs));
  return detail::withTransaction(
      db, "record_registration", [&](Tx& tx) -> common::Result<AgentTask> {
        PROV_ASSIGN(auto task, detail::lockTask(tx, task_id));
        if (!task.open()) return detail::taskNotOpen(task);
        PROV_TRY(detail::requireJson(facts_json, "facts"));
        tx.exec(detail::kSetTaskFacts, task_id, facts_json);
        // The agent proved who it is with a node-scoped token, so a MAC it reports that boots
        // another node (a NIC moved between chassis) is flagged for people, not a reason to
        // strand this node's burn-in.
        std::vector<std::string> conflicts;
        PROV_TRY(detail::insertBootMacs(tx, task.node_id, macs, "agent", &conflicts));
        if (!conflicts.empty()) {
          std::string listed;
          for (const auto& c : conflicts) listed += (listed.empty() ? "" : ", ") + c;
          detail::insertEvent(tx, task.node_id, "agent", "boot_mac_conflict",
                              "the agent reports MACs that boot other nodes: " + listed,
                              taskDetail(task));
        }
        detail::insertEvent(tx, task.node_id, "agent", "agent_registered",
                            "agent registered for task " + std::to_string(task_id),
                            taskDetail(task));
        return detail::readTask(tx, task_id);
      });
}

common::Result<AgentTask> markTaskStarted(Database& db, Id task_id) {
  return detail::withTransaction(db, "mark_task_started", [&](Tx& tx) -> common::Result<AgentTask> {
    PROV_ASSIGN(auto task, detail::lockTask(tx, task_id));
    if (task.state == "running") return detail::readTask(tx, task_id);
    if (task.state != "pending") return detail::taskNotOpen(task);
    tx.exec(detail::kStartTask, task_id);
    detail::insertEvent(tx, task.node_id, "agent", "task_started",
                        task.kind + " task " + std::to_string(task_id) + " started",
                        taskDetail(task));
    return detail::readTask(tx, task_id);
  });
}

common::Result<void> recordProgress(Database& db, Id task_id, const std::string& progress_json) {
  return detail::withTransaction(db, "record_progress", [&](Tx& tx) -> common::Result<void> {
    PROV_ASSIGN(auto task, detail::lockTask(tx, task_id));
    if (!task.open()) return detail::taskNotOpen(task);
    PROV_TRY(detail::requireJson(progress_json, "progress"));
    tx.exec(detail::kSetTaskProgress, task_id, progress_json);
    return common::success();
  });
}

common::Result<AgentTask> cancelAgentTask(Database& db, Id task_id, const std::string& actor,
                                          const std::string& reason) {
  return detail::withTransaction(db, "cancel_agent_task", [&](Tx& tx) -> common::Result<AgentTask> {
    PROV_ASSIGN(auto task, detail::lockTask(tx, task_id));
    if (!task.open()) return detail::taskNotOpen(task);
    tx.exec(detail::kCancelTask, task_id);
    tx.exec(detail::kRevokeTaskTokens, task_id);
    std::string message = task.kind + " task " + std::to_string(task_id) + " cancelled";
    if (!reason.empty()) message += ": " + reason;
    detail::insertEvent(tx, task.node_id, actor, "task_cancelled", message,
                        detail::JsonObject()
                            .add("task_id", task_id)
                            .add("kind", task.kind)
                            .add("reason", reason)
                            .str());
    return detail::readTask(tx, task_id);
  });
}

}  // namespace inventory

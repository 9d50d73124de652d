#include "agent_rows.hpp"

#include "catalog_values.hpp"
#include "queries_agent_tasks.hpp"

namespace inventory::detail {
namespace {

std::optional<Timestamp> optText(const pqxx::field& f) {
  return f.is_null() ? std::nullopt : std::optional<Timestamp>(f.c_str());
}

}  // namespace

AgentTask taskFromRow(const pqxx::row& row) {
  AgentTask t;
  t.id = id(row[0]);
  t.node_id = id(row[1]);
  t.kind = row[2].c_str();
  t.state = row[3].c_str();
  t.spec_json = row[4].c_str();
  t.batch = row[5].c_str();
  t.expected_gpus = row[6].as<int>();
  t.facts_json = row[7].c_str();
  t.progress_json = row[8].c_str();
  t.verdict_json = row[9].c_str();
  t.created_by = row[10].c_str();
  t.created_at = row[11].c_str();
  t.registered_at = optText(row[12]);
  t.started_at = optText(row[13]);
  t.finished_at = optText(row[14]);
  return t;
}

AgentTask readTask(Tx& tx, Id task_id) {
  return taskFromRow(tx.exec(kSelectTask, task_id)[0]);
}

common::Result<LockedTask> lockTask(Tx& tx, Id task_id) {
  auto rows = tx.exec(kLockTask, task_id);
  if (rows.empty()) return taskNotFound(task_id);
  const auto& row = rows[0];
  return LockedTask{task_id, id(row[1]), row[0].c_str(), row[2].c_str(), row[3].c_str()};
}

common::Error taskNotOpen(const LockedTask& task) {
  return common::conflict("task_not_open", "task " + std::to_string(task.id) + " is " + task.state);
}

}  // namespace inventory::detail

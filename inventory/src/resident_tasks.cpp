// The resident agent's tasks: the run's intent, delivery in the health batch's answer, the
// agent's report (idempotent), and the GPU state a reset is checked against.
#include "inventory/resident_tasks.hpp"

#include <algorithm>

#include "db.hpp"
#include "gpu_health_rows.hpp"
#include "queries_resident_tasks.hpp"

namespace inventory {
namespace {

using detail::Tx;

ResidentTask taskFromRow(const pqxx::row& row) {
  ResidentTask t;
  t.id = detail::id(row[0]);
  t.node_id = detail::id(row[1]);
  t.kind = detail::text(row[2]);
  t.gpu_serial = detail::text(row[3]);
  t.flag_id = detail::optId(row[4]);
  t.run_id = detail::id(row[5]);
  t.state = detail::text(row[6]);
  t.message = detail::text(row[7]);
  t.created_at = detail::text(row[8]);
  t.delivered_at = detail::text(row[9]);
  t.finished_at = detail::text(row[10]);
  t.done_at = detail::text(row[11]);
  t.spec_json = detail::text(row[12]);
  t.verdict_json = detail::text(row[13]);
  return t;
}

common::Error taskNotFound(Id task_id) {
  return common::notFound("resident_task_not_found",
                          "no resident task " + std::to_string(task_id) + " for this node");
}

}  // namespace

common::Result<ResidentTask> queueResidentTask(Database& db, const ResidentTaskDraft& draft,
                                               health::Seconds now) {
  if (draft.kind != kResidentGpuReset && draft.kind != kResidentBurnIn) {
    return common::fail(
        common::invalidArgument("invalid_kind", "no resident task kind " + draft.kind, "kind"));
  }
  return detail::withTransaction(
      db, "queue_resident_task", [&](Tx& tx) -> common::Result<ResidentTask> {
        auto rows = tx.exec(detail::kQueueResidentTask, draft.node_id, draft.kind, draft.gpu_serial,
                            draft.flag_id, draft.run_id, detail::sqlTime(now), draft.spec_json);
        return taskFromRow(rows.at(0));
      });
}

common::Result<std::vector<ResidentTask>> deliverResidentTasks(Database& db, Id node_id,
                                                               health::Seconds now) {
  return detail::withTransaction(
      db, "deliver_resident_tasks", [&](Tx& tx) -> common::Result<std::vector<ResidentTask>> {
        std::vector<ResidentTask> out;
        for (const auto& row :
             tx.exec(detail::kDeliverResidentTasks, node_id, detail::sqlTime(now))) {
          out.push_back(taskFromRow(row));
        }
        std::sort(out.begin(), out.end(),
                  [](const ResidentTask& a, const ResidentTask& b) { return a.id < b.id; });
        return out;
      });
}

common::Result<ResidentTask> finishResidentTask(Database& db, Id node_id, Id task_id,
                                                bool succeeded, const std::string& message,
                                                std::optional<health::Seconds> done_at,
                                                health::Seconds now,
                                                const std::optional<std::string>& verdict_json) {
  std::optional<std::string> done_text;
  if (done_at) done_text = detail::sqlTime(*done_at);
  const std::string state = succeeded ? "succeeded" : "failed";
  return detail::withTransaction(
      db, "finish_resident_task", [&](Tx& tx) -> common::Result<ResidentTask> {
        auto rows = tx.exec(detail::kFinishResidentTask, task_id, node_id, state, message,
                            detail::sqlTime(now), done_text, verdict_json);
        if (!rows.empty()) return taskFromRow(rows[0]);
        auto found = tx.exec(detail::kGetResidentTask, task_id);
        if (found.empty()) return common::fail(taskNotFound(task_id));
        ResidentTask task = taskFromRow(found[0]);
        if (task.node_id != node_id) return common::fail(taskNotFound(task_id));
        if (task.state == state) return task;  // a retry after a lost answer
        return common::fail(common::conflict(
            "resident_task_finished",
            "resident task " + std::to_string(task_id) + " is already " + task.state, "status"));
      });
}

common::Result<bool> cancelResidentTask(Database& db, Id task_id, const std::string& message,
                                        health::Seconds now) {
  return detail::withTransaction(db, "cancel_resident_task", [&](Tx& tx) -> common::Result<bool> {
    return tx.exec(detail::kCancelResidentTask, task_id, message, detail::sqlTime(now))
               .affected_rows() == 1;
  });
}

common::Result<ResidentTask> getResidentTask(Database& db, Id task_id) {
  return detail::withRead(db, "get_resident_task", [&](Tx& tx) -> common::Result<ResidentTask> {
    auto rows = tx.exec(detail::kGetResidentTask, task_id);
    if (rows.empty()) return common::fail(taskNotFound(task_id));
    return taskFromRow(rows[0]);
  });
}

common::Result<std::vector<ResidentTask>> listResidentTasks(Database& db, Id node_id) {
  return detail::withRead(db, "list_resident_tasks",
                          [&](Tx& tx) -> common::Result<std::vector<ResidentTask>> {
                            std::vector<ResidentTask> out;
                            for (const auto& row : tx.exec(detail::kListResidentTasks, node_id)) {
                              out.push_back(taskFromRow(row));
                            }
                            return out;
                          });
}

common::Result<std::optional<ResidentTask>> openBurnIn(Database& db, Id node_id) {
  return detail::withRead(db, "open_resident_burn_in",
                          [&](Tx& tx) -> common::Result<std::optional<ResidentTask>> {
                            auto rows = tx.exec(detail::kOpenBurnIn, node_id);
                            if (rows.empty()) return std::optional<ResidentTask>{};
                            return std::optional<ResidentTask>{taskFromRow(rows[0])};
                          });
}

common::Result<std::optional<health::Seconds>> lastJudgedBurnIn(Database& db, Id node_id) {
  return detail::withRead(db, "last_judged_burn_in",
                          [&](Tx& tx) -> common::Result<std::optional<health::Seconds>> {
                            auto rows = tx.exec(detail::kLastJudgedBurnIn, node_id);
                            if (rows.empty() || rows[0][0].is_null()) {
                              return std::optional<health::Seconds>{};
                            }
                            return std::optional<health::Seconds>{
                                health::Seconds{std::chrono::seconds{rows[0][0].as<long long>()}}};
                          });
}

common::Result<GpuRemapState> gpuRemapState(Database& db, const std::string& serial) {
  return detail::withRead(db, "gpu_remap_state", [&](Tx& tx) -> common::Result<GpuRemapState> {
    auto rows = tx.exec(detail::kGpuRemapState, serial);
    if (rows.empty()) {
      return common::fail(common::notFound("gpu_not_found", "GPU " + serial + " never reported"));
    }
    GpuRemapState s;
    if (!rows[0][0].is_null())
      s.last_sample = health::Seconds{std::chrono::seconds{rows[0][0].as<long long>()}};
    s.remap_pending = !rows[0][1].is_null() && rows[0][1].as<bool>();
    return s;
  });
}

}  // namespace inventory

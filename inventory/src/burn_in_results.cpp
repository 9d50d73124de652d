// Burn-in results: stored once when a task finishes, read back per task, per GPU serial, and as
// batch peers for the outlier check.
#include <cmath>

#include "agent_rows.hpp"
#include "catalog_values.hpp"
#include "db.hpp"
#include "inventory/agent_tasks.hpp"
#include "node_rows.hpp"
#include "queries_agent_tasks.hpp"
#include "queries_agent_tokens.hpp"
#include "queries_burn_in.hpp"
#include "values.hpp"

namespace inventory {
namespace {

using detail::Tx;

bool finiteOrUnset(const std::optional<double>& v) {
  return !v || std::isfinite(*v);
}

common::Result<void> validateResults(const std::vector<BurnInResultRecord>& results) {
  for (std::size_t i = 0; i < results.size(); ++i) {
    const auto& r = results[i];
    std::string at = "results[" + std::to_string(i) + "].";
    if (r.gpu_serial.empty()) {
      return common::invalidArgument("missing_field", "gpu_serial is required", at + "gpu_serial");
    }
    if (r.test.empty()) {
      return common::invalidArgument("missing_field", "test is required", at + "test");
    }
    const char* bad = !std::isfinite(r.value)          ? "value"
                      : !std::isfinite(r.threshold)    ? "threshold"
                      : !finiteOrUnset(r.nominal)      ? "nominal"
                      : !finiteOrUnset(r.batch_median) ? "batch_median"
                      : !finiteOrUnset(r.robust_z)     ? "robust_z"
                                                       : nullptr;
    if (bad != nullptr) {
      return common::invalidArgument("invalid_value", std::string(bad) + " must be a finite number",
                                     at + bad);
    }
  }
  return common::success();
}

common::Result<void> validateFinishState(const std::string& state) {
  if (state != "passed" && state != "failed" && state != "error") {
    return common::invalidArgument("invalid_state", "state must be passed, failed or error",
                                   "state");
  }
  return common::success();
}

// "burn_in_passed", "burn_in_failed", "wipe_passed", ...; any task's error is "task_error".
std::string finishEventKind(const std::string& task_kind, const std::string& state) {
  return state == "error" ? "task_error" : task_kind + "_" + state;
}

// Rows carry the task's node and batch, whatever the records say: peers are found by batch.
void insertResults(Tx& tx, const detail::LockedTask& task,
                   const std::vector<BurnInResultRecord>& results) {
  for (const auto& r : results) {
    tx.exec(detail::kInsertResult, task.id, task.node_id, task.batch, r.gpu_serial, r.gpu_uuid,
            r.gpu_model, r.test, r.value, r.unit, r.nominal, r.threshold, r.batch_median,
            r.robust_z, r.passed, r.reason, r.measured_at);
  }
}

std::optional<double> optDouble(const pqxx::field& f) {
  return f.is_null() ? std::nullopt : std::optional<double>(f.as<double>());
}

BurnInResultRecord resultFromRow(const pqxx::row& row) {
  BurnInResultRecord r;
  r.id = detail::id(row[0]);
  r.task_id = detail::id(row[1]);
  r.node_id = detail::id(row[2]);
  r.batch = row[3].c_str();
  r.gpu_serial = row[4].c_str();
  r.gpu_uuid = row[5].c_str();
  r.gpu_model = row[6].c_str();
  r.test = row[7].c_str();
  r.value = row[8].as<double>();
  r.unit = row[9].c_str();
  r.nominal = optDouble(row[10]);
  r.threshold = row[11].as<double>();
  r.batch_median = optDouble(row[12]);
  r.robust_z = optDouble(row[13]);
  r.passed = row[14].as<bool>();
  r.reason = row[15].c_str();
  r.measured_at = row[16].c_str();
  return r;
}

std::vector<BurnInResultRecord> resultsFrom(const pqxx::result& rows) {
  std::vector<BurnInResultRecord> results;
  results.reserve(rows.size());
  for (const auto& row : rows) results.push_back(resultFromRow(row));
  return results;
}

}  // namespace

common::Result<std::vector<double>> batchPeerValues(Database& db, const std::string& batch,
                                                    const std::string& gpu_model,
                                                    const std::string& test, Id exclude_task_id) {
  // Tasks without a batch have no peers (they are not one delivery of one model).
  if (batch.empty()) return std::vector<double>();
  return detail::withRead(
      db, "batch_peer_values", [&](Tx& tx) -> common::Result<std::vector<double>> {
        std::vector<double> values;
        for (const auto& row :
             tx.exec(detail::kSelectPeerValues, batch, gpu_model, test, exclude_task_id)) {
          values.push_back(row[0].as<double>());
        }
        return values;
      });
}

common::Result<AgentTask> finishAgentTask(Database& db, Id task_id, const std::string& state,
                                          const std::vector<BurnInResultRecord>& results,
                                          const std::string& verdict_json,
                                          const std::string& summary) {
  PROV_TRY(validateFinishState(state));
  PROV_TRY(validateResults(results));
  return detail::withTransaction(db, "finish_agent_task", [&](Tx& tx) -> common::Result<AgentTask> {
    PROV_ASSIGN(auto task, detail::lockTask(tx, task_id));
    if (task.state != "running") return detail::taskNotOpen(task);
    PROV_TRY(detail::requireJson(verdict_json, "verdict"));
    insertResults(tx, task, results);
    tx.exec(detail::kFinishTask, task_id, state, verdict_json);
    tx.exec(detail::kRevokeUnusedTaskBootTokens, task_id);
    long long failed = 0;
    for (const auto& r : results) failed += r.passed ? 0 : 1;
    detail::insertEvent(tx, task.node_id, "agent", finishEventKind(task.kind, state), summary,
                        detail::JsonObject()
                            .add("task_id", task_id)
                            .add("state", state)
                            .add("results", static_cast<long long>(results.size()))
                            .add("failed_results", failed)
                            .str());
    return detail::readTask(tx, task_id);
  });
}

common::Result<std::vector<BurnInResultRecord>> gpuBurnInHistory(Database& db,
                                                                 const std::string& gpu_serial) {
  return detail::withRead(
      db, "gpu_burn_in_history", [&](Tx& tx) -> common::Result<std::vector<BurnInResultRecord>> {
        auto rows = tx.exec(detail::kSelectGpuHistory, gpu_serial);
        if (rows.empty()) {
          return common::notFound("gpu_not_found", "no burn-in results for GPU " + gpu_serial);
        }
        return resultsFrom(rows);
      });
}

common::Result<std::vector<BurnInResultRecord>> taskResults(Database& db, Id task_id) {
  return detail::withRead(db, "task_results",
                          [&](Tx& tx) -> common::Result<std::vector<BurnInResultRecord>> {
                            return resultsFrom(tx.exec(detail::kSelectTaskResults, task_id));
                          });
}

}  // namespace inventory

// Reading workflow runs and their timeline: one run, the latest of a node or subject, listings,
// progress counts.
#include "inventory/workflow_runs.hpp"
#include "queries_workflows.hpp"
#include "values.hpp"
#include "workflow_runs_rows.hpp"

namespace inventory {
namespace {

using detail::Tx;

std::optional<WorkflowRun> firstRun(const pqxx::result& rows) {
  if (rows.empty()) return std::nullopt;
  return detail::runFromRow(rows[0]);
}

std::vector<WorkflowEventRecord> eventsOf(const pqxx::result& rows) {
  std::vector<WorkflowEventRecord> events;
  events.reserve(rows.size());
  for (const auto& row : rows) events.push_back(detail::workflowEventFromRow(row));
  return events;
}

}  // namespace

common::Result<WorkflowRun> getWorkflowRun(Database& db, Id run_id) {
  return detail::withRead(db, "get_workflow_run", [&](Tx& tx) -> common::Result<WorkflowRun> {
    auto rows = tx.exec(detail::kSelectRun, run_id);
    if (rows.empty()) return detail::runNotFound(run_id);
    return detail::runFromRow(rows[0]);
  });
}

common::Result<std::optional<WorkflowRun>> latestRunForNode(Database& db, const std::string& kind,
                                                            Id node_id) {
  return detail::withRead(db, "latest_workflow_run_for_node",
                          [&](Tx& tx) -> common::Result<std::optional<WorkflowRun>> {
                            return firstRun(tx.exec(detail::kLatestRunForNode, kind, node_id));
                          });
}

common::Result<std::optional<WorkflowRun>> latestRunForSubject(Database& db,
                                                               const std::string& kind,
                                                               const std::string& subject) {
  return detail::withRead(db, "latest_workflow_run_for_subject",
                          [&](Tx& tx) -> common::Result<std::optional<WorkflowRun>> {
                            return firstRun(tx.exec(detail::kLatestRunForSubject, kind, subject));
                          });
}

common::Result<Page<WorkflowRun>> listWorkflowRuns(Database& db, const WorkflowRunFilter& filter) {
  const int limit = detail::clampLimit(filter.page.limit);
  return detail::withRead(
      db, "list_workflow_runs", [&](Tx& tx) -> common::Result<Page<WorkflowRun>> {
        std::vector<WorkflowRun> runs;
        for (const auto& row : tx.exec(detail::kListRuns, filter.kind, filter.state, filter.step,
                                       filter.page.after, limit + 1)) {
          runs.push_back(detail::runFromRow(row));
        }
        return detail::makePage(std::move(runs), limit);
      });
}

common::Result<std::vector<std::pair<std::string, std::int64_t>>> workflowRunCounts(
    Database& db, const std::string& kind) {
  using Counts = std::vector<std::pair<std::string, std::int64_t>>;
  return detail::withRead(db, "workflow_run_counts", [&](Tx& tx) -> common::Result<Counts> {
    Counts counts;
    for (const auto& row : tx.exec(detail::kRunCounts, kind)) {
      counts.emplace_back(detail::text(row[0]), row[1].as<std::int64_t>());
    }
    return counts;
  });
}

common::Result<std::vector<WorkflowEventRecord>> workflowRunEvents(Database& db, Id run_id) {
  return detail::withRead(db, "workflow_run_events",
                          [&](Tx& tx) -> common::Result<std::vector<WorkflowEventRecord>> {
                            return eventsOf(tx.exec(detail::kRunEvents, run_id));
                          });
}

common::Result<std::vector<WorkflowEventRecord>> nodeTimeline(Database& db, Id node_id) {
  return detail::withRead(db, "workflow_node_timeline",
                          [&](Tx& tx) -> common::Result<std::vector<WorkflowEventRecord>> {
                            return eventsOf(tx.exec(detail::kNodeTimeline, node_id));
                          });
}

}  // namespace inventory

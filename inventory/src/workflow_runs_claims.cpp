// Claiming due runs under a lease and writing a step's outcome fenced by the lease epoch.
#include <algorithm>

#include "inventory/workflow_runs.hpp"
#include "queries_workflows.hpp"
#include "workflow_runs_rows.hpp"

namespace inventory {

using detail::Tx;

common::Result<std::vector<WorkflowRun>> claimDueRuns(Database& db, const std::string& owner,
                                                      WallTime now, std::chrono::milliseconds lease,
                                                      std::size_t limit) {
  if (owner.empty()) return common::invalidArgument("missing_field", "owner is required", "owner");
  // Autocommit: the statement is its own transaction, one round trip.
  return detail::withRead(
      db, "claim_due_workflow_runs", [&](Tx& tx) -> common::Result<std::vector<WorkflowRun>> {
        auto rows = tx.exec(detail::kClaimDueRuns, detail::micros(now), owner,
                            detail::micros(now + lease), static_cast<std::int64_t>(limit));
        std::vector<WorkflowRun> runs;
        runs.reserve(rows.size());
        for (const auto& row : rows) runs.push_back(detail::runFromRow(row));
        // RETURNING keeps no order: the most overdue first.
        std::sort(runs.begin(), runs.end(), [](const WorkflowRun& a, const WorkflowRun& b) {
          return a.next_run_at < b.next_run_at;
        });
        return runs;
      });
}

common::Result<bool> completeStep(Database& db, const StepCompletion& c) {
  const std::string context = c.context_json.empty() ? "{}" : c.context_json;
  const std::string detail_json = c.detail_json.empty() ? "{}" : c.detail_json;
  const std::string events = detail::eventsJson(c.events, c.now);
  // One statement: atomic without BEGIN/COMMIT round trips.
  return detail::withRead(db, "complete_workflow_step", [&](Tx& tx) -> common::Result<bool> {
    auto rows = tx.exec(detail::kCompleteStep, c.run_id, c.owner, c.epoch, c.state, c.step,
                        c.attempt, c.is_wait, c.wakeups_seen, detail::micros(c.next_run_at),
                        c.waiting_for, c.step_changed, context, c.node_id, c.site, c.rack, c.reason,
                        detail_json, events, detail::micros(c.now));
    return rows[0][0].as<std::int64_t>() == 1;
  });
}

common::Result<void> releaseLeases(Database& db, const std::string& owner,
                                   const std::vector<Id>& runs) {
  if (runs.empty()) return common::success();
  std::string ids = "{";
  for (Id id : runs) {
    if (ids.size() > 1) ids.push_back(',');
    ids += std::to_string(id);
  }
  ids.push_back('}');
  return detail::withRead(db, "release_workflow_leases", [&](Tx& tx) -> common::Result<void> {
    tx.exec(detail::kReleaseLeases, owner, ids);
    return common::success();
  });
}

}  // namespace inventory

// Claiming due runs under a lease, renewing it (the heartbeat), recording a step's intent and
// writing its outcome, each fenced by the lease epoch.
#include <algorithm>

#include "inventory/workflow_runs.hpp"
#include "queries_workflows.hpp"
#include "workflow_runs_rows.hpp"

namespace inventory {

using detail::Tx;

common::Result<std::vector<WorkflowRun>> claimDueRuns(Database& db, const std::string& owner,
                                                      WallTime now, std::chrono::milliseconds lease,
                                                      std::size_t limit,
                                                      std::optional<std::int32_t> live_key,
                                                      bool take_over) {
  if (owner.empty()) return common::invalidArgument("missing_field", "owner is required", "owner");
  // Autocommit: the statement is its own transaction, one round trip.
  return detail::withRead(
      db, "claim_due_workflow_runs", [&](Tx& tx) -> common::Result<std::vector<WorkflowRun>> {
        auto rows = tx.exec(detail::kClaimDueRuns, detail::micros(now), owner,
                            detail::micros(now + lease), static_cast<std::int64_t>(limit), live_key,
                            static_cast<std::int64_t>(detail::kLivenessLockClass), take_over);
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

common::Result<std::vector<LeaseHold>> renewLeases(Database& db, const std::string& owner,
                                                   const std::vector<LeaseHold>& holds,
                                                   WallTime now, std::chrono::milliseconds lease) {
  if (holds.empty()) return std::vector<LeaseHold>{};
  if (owner.empty()) return common::invalidArgument("missing_field", "owner is required", "owner");
  // Ascending ids: two renewals of one replica never lock rows in opposite orders.
  std::vector<LeaseHold> sorted = holds;
  std::sort(sorted.begin(), sorted.end(), [](const LeaseHold& a, const LeaseHold& b) {
    return a.run_id != b.run_id ? a.run_id < b.run_id : a.epoch < b.epoch;
  });
  std::vector<std::int64_t> ids, epochs;
  for (const LeaseHold& h : sorted) {
    ids.push_back(h.run_id);
    epochs.push_back(h.epoch);
  }
  return detail::withRead(
      db, "renew_workflow_leases", [&](Tx& tx) -> common::Result<std::vector<LeaseHold>> {
        auto rows = tx.exec(detail::kRenewLeases, owner, detail::bigintArray(ids),
                            detail::bigintArray(epochs), detail::micros(now + lease));
        std::vector<LeaseHold> held;
        held.reserve(rows.size());
        for (const auto& row : rows) {
          held.push_back({row[0].as<Id>(), row[1].as<std::int64_t>()});
        }
        return held;
      });
}

common::Result<bool> recordRunIntent(Database& db, const std::string& owner, const LeaseHold& hold,
                                     const std::string& context_json, WallTime now,
                                     std::chrono::milliseconds lease) {
  const std::string context = context_json.empty() ? "{}" : context_json;
  return detail::withRead(db, "record_workflow_intent", [&](Tx& tx) -> common::Result<bool> {
    auto result = tx.exec(detail::kRecordIntent, hold.run_id, owner, hold.epoch, context,
                          detail::micros(now), detail::micros(now + lease));
    return result.affected_rows() == 1;
  });
}

common::Result<void> releaseLeases(Database& db, const std::string& owner,
                                   const std::vector<Id>& runs) {
  if (runs.empty()) return common::success();
  const std::string ids = detail::bigintArray(runs);
  return detail::withRead(db, "release_workflow_leases", [&](Tx& tx) -> common::Result<void> {
    tx.exec(detail::kReleaseLeases, owner, ids);
    return common::success();
  });
}

}  // namespace inventory

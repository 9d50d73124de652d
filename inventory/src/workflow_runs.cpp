// Workflow runs: creating them (idempotent per open subject), signals, and operator actions.
// Claims and outcomes are in workflow_runs_claims.cpp, reads in workflow_runs_reads.cpp.
#include "inventory/workflow_runs.hpp"

#include "queries_workflows.hpp"
#include "workflow_runs_rows.hpp"

namespace inventory {
namespace {

using detail::Tx;

bool validKind(const std::string& kind) {
  if (kind.empty() || kind.size() > 64 || kind[0] < 'a' || kind[0] > 'z') return false;
  for (char c : kind) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
    if (!ok) return false;
  }
  return true;
}

common::Result<void> validateNewRun(const NewWorkflowRun& run) {
  if (!validKind(run.kind)) {
    return common::invalidArgument("invalid_kind", "workflow kind must match [a-z][a-z0-9_]*",
                                   "kind");
  }
  if (run.subject.empty()) {
    return common::invalidArgument("missing_field", "subject is required", "subject");
  }
  if (run.step.empty()) {
    return common::invalidArgument("missing_field", "step is required", "step");
  }
  return common::success();
}

void appendEvent(Tx& tx, Id run_id, WallTime now, const std::string& actor, const std::string& step,
                 const std::string& kind, const std::string& message,
                 const std::string& detail_json = "{}") {
  WorkflowEventRecord e;
  e.at_time = now;
  e.actor = actor;
  e.step = step;
  e.kind = kind;
  e.message = message;
  e.detail_json = detail_json;
  tx.exec(detail::kInsertWorkflowEvents, run_id, detail::eventsJson({e}, now));
}

common::Result<WorkflowRun> readRun(Tx& tx, Id run_id) {
  auto rows = tx.exec(detail::kSelectRun, run_id);
  if (rows.empty()) return detail::runNotFound(run_id);
  return detail::runFromRow(rows[0]);
}

struct LockedRun {
  std::string state, kind, subject;
};

common::Result<LockedRun> lockRun(Tx& tx, Id run_id) {
  auto rows = tx.exec(detail::kLockRun, run_id);
  if (rows.empty()) return detail::runNotFound(run_id);
  return LockedRun{detail::text(rows[0][0]), detail::text(rows[0][1]), detail::text(rows[0][2])};
}

}  // namespace

common::Result<CreatedRun> createWorkflowRun(Database& db, const NewWorkflowRun& run) {
  PROV_TRY(validateNewRun(run));
  const std::string context = run.context_json.empty() ? "{}" : run.context_json;
  return detail::withTransaction(
      db, "create_workflow_run", [&](Tx& tx) -> common::Result<CreatedRun> {
        auto inserted = tx.exec(detail::kInsertWorkflowRun, run.kind, run.subject, run.step,
                                detail::micros(run.now), context, run.node_id, run.site, run.rack,
                                run.created_by);
        if (inserted.empty()) {
          // Another open run of the subject: the trigger was a repeat.
          auto open = tx.exec(detail::kSelectOpenRunOfSubject, run.kind, run.subject);
          if (open.empty()) {
            return common::conflict("run_race", "the open run of " + run.subject +
                                                    " ended while starting another; try again");
          }
          return CreatedRun{detail::runFromRow(open[0]), false};
        }
        WorkflowRun created = detail::runFromRow(inserted[0]);
        appendEvent(tx, created.id, run.now, run.created_by, run.step, "started",
                    run.kind + " started at step " + run.step);
        return CreatedRun{std::move(created), true};
      });
}

common::Result<void> signalWorkflowRun(Database& db, Id run_id, WallTime now) {
  return detail::withRead(db, "signal_workflow_run", [&](Tx& tx) -> common::Result<void> {
    tx.exec(detail::kSignalRun, run_id, detail::micros(now));
    return common::success();
  });
}

common::Result<void> signalNodeRun(Database& db, const std::string& kind, Id node_id,
                                   WallTime now) {
  return detail::withRead(db, "signal_node_run", [&](Tx& tx) -> common::Result<void> {
    tx.exec(detail::kSignalNodeRun, kind, node_id, detail::micros(now));
    return common::success();
  });
}

common::Result<WorkflowRun> reopenWorkflowRun(Database& db, Id run_id, const std::string& step,
                                              const std::string& actor, WallTime now) {
  if (step.empty()) return common::invalidArgument("missing_field", "step is required", "step");
  return detail::withTransaction(
      db, "reopen_workflow_run", [&](Tx& tx) -> common::Result<WorkflowRun> {
        PROV_ASSIGN(auto locked, lockRun(tx, run_id));
        if (locked.state == "running") {
          return common::conflict("run_open", "run " + std::to_string(run_id) + " is still open");
        }
        if (locked.state == "succeeded") {
          return common::conflict("run_succeeded",
                                  "run " + std::to_string(run_id) + " succeeded; start a new one");
        }
        auto other = tx.exec(detail::kOtherOpenRunOfSubject, locked.kind, locked.subject, run_id);
        if (!other.empty()) {
          return common::conflict("run_open", "run " + detail::text(other[0][0]) + " of " +
                                                  locked.subject + " is open");
        }
        tx.exec(detail::kReopenRun, run_id, step, detail::micros(now));
        appendEvent(tx, run_id, now, actor, step, "retried", "retried at step " + step);
        return readRun(tx, run_id);
      });
}

common::Result<WorkflowRun> cancelWorkflowRun(Database& db, Id run_id, const std::string& actor,
                                              const std::string& reason, WallTime now) {
  return detail::withTransaction(
      db, "cancel_workflow_run", [&](Tx& tx) -> common::Result<WorkflowRun> {
        PROV_ASSIGN(auto locked, lockRun(tx, run_id));
        if (locked.state != "running") {
          return common::conflict("run_finished",
                                  "run " + std::to_string(run_id) + " is " + locked.state);
        }
        tx.exec(detail::kCancelRun, run_id, reason, detail::micros(now));
        tx.exec(detail::kReleaseRunSlots, run_id, detail::micros(now));
        PROV_ASSIGN(auto run, readRun(tx, run_id));
        std::string message = "cancelled";
        if (!reason.empty()) message += ": " + reason;
        appendEvent(tx, run_id, now, actor, run.step, "cancelled", message);
        return run;
      });
}

}  // namespace inventory

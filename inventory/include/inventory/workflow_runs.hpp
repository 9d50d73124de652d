// Workflow runs, their timeline and admission slots (migration 0004). The engine (workflows/)
// decides; this is only how runs are stored. Every time is passed in from the engine's clock.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "inventory/database.hpp"
#include "inventory/types.hpp"

namespace inventory {

using WallTime = std::chrono::system_clock::time_point;

struct WorkflowRun {
  Id id = 0;
  std::string kind, subject, state, step;
  int attempt = 0;
  WallTime next_run_at{};
  std::string waiting_for;
  std::int64_t wakeups = 0;
  std::string lease_owner;  // "" when not leased
  std::int64_t lease_epoch = 0;
  std::string context_json = "{}";
  std::optional<Id> node_id;
  std::string site, rack, reason;
  std::string detail_json = "{}";
  WallTime step_started_at{};
  std::string created_by;
  Timestamp created_at, updated_at, finished_at;  // ISO 8601 ("" when not finished)
};

struct NewWorkflowRun {
  std::string kind, subject, step;
  std::string context_json = "{}";
  std::optional<Id> node_id;
  std::string site, rack, created_by;
  WallTime now{};
};

struct WorkflowEventRecord {
  Id id = 0;
  Id run_id = 0;
  std::optional<Id> node_id;
  Timestamp at;        // ISO 8601 when read
  WallTime at_time{};  // when written
  std::string actor, step, kind, message;
  std::string detail_json = "{}";
  std::optional<double> duration_ms;
};

// Inserts a run (and a "started" event); an open run of (kind, subject) is returned instead
// with `created` false.
struct CreatedRun {
  WorkflowRun run;
  bool created = false;
};
common::Result<CreatedRun> createWorkflowRun(Database& db, const NewWorkflowRun& run);

// One round trip: due runs (state running, next_run_at <= now, lease free, expired, or held by
// a replica whose liveness lock is gone) locked with FOR UPDATE SKIP LOCKED, leased to `owner`
// until now + lease, epoch bumped, stamped with the claimer's liveness key (replica_liveness.hpp;
// nullopt: none, only expiry frees these runs). Runs of a dead replica are taken only with
// `take_over` and while `live_key` is held.
common::Result<std::vector<WorkflowRun>> claimDueRuns(
    Database& db, const std::string& owner, WallTime now, std::chrono::milliseconds lease,
    std::size_t limit, std::optional<std::int32_t> live_key = std::nullopt, bool take_over = true);

// How a claimed step ended, written in one transaction if (id, owner, epoch) still holds.
struct StepCompletion {
  Id run_id = 0;
  std::string owner;
  std::int64_t epoch = 0;
  std::int64_t wakeups_seen = 0;  // the run's wakeups when claimed
  std::string state = "running";  // or succeeded / failed / cancelled
  std::string step;
  int attempt = 0;
  WallTime next_run_at{};
  std::string waiting_for;
  bool is_wait = false;       // a wait: due at once instead if wakeups moved since the claim
  bool step_changed = false;  // step_started_at := now
  std::string context_json = "{}";
  std::optional<Id> node_id;
  std::string site, rack, reason;
  std::string detail_json = "{}";
  WallTime now{};
  std::vector<WorkflowEventRecord> events;  // run_id/node_id filled in by the call
};
// False (not an error) when the lease was lost: nothing is written. A finished run releases its
// slots and wakes the runs waiting for them ("slot:<scope>:<key>").
common::Result<bool> completeStep(Database& db, const StepCompletion& completion);

// A lease as a replica holds it: the run and the epoch it was claimed with.
struct LeaseHold {
  Id run_id = 0;
  std::int64_t epoch = 0;
  bool operator==(const LeaseHold&) const = default;
};

// One round trip (the heartbeat): every hold still valid (run open, leased to `owner` under that
// epoch) is extended to now + lease; returns those, the others were lost. An expired lease that
// nobody claimed since is still valid: its epoch proves no other replica took the run.
common::Result<std::vector<LeaseHold>> renewLeases(Database& db, const std::string& owner,
                                                   const std::vector<LeaseHold>& holds,
                                                   WallTime now, std::chrono::milliseconds lease);

// Writes the run's context now (the intent of a dangerous action), fenced by (owner, epoch), and
// extends the lease to now + lease. False (not an error) when the lease was lost.
common::Result<bool> recordRunIntent(Database& db, const std::string& owner, const LeaseHold& hold,
                                     const std::string& context_json, WallTime now,
                                     std::chrono::milliseconds lease);

// Clears the lease of runs claimed but not executed (a replica stopping).
common::Result<void> releaseLeases(Database& db, const std::string& owner,
                                   const std::vector<Id>& runs);

// wakeups += 1 and next_run_at := least(next_run_at, now) for an open run; a no-op otherwise.
common::Result<void> signalWorkflowRun(Database& db, Id run_id, WallTime now);
common::Result<void> signalNodeRun(Database& db, const std::string& kind, Id node_id, WallTime now);

// Operator actions (an event with the actor is appended). NotFound "run_not_found".
common::Result<WorkflowRun> reopenWorkflowRun(Database& db, Id run_id, const std::string& step,
                                              const std::string& actor, WallTime now);
common::Result<WorkflowRun> cancelWorkflowRun(Database& db, Id run_id, const std::string& actor,
                                              const std::string& reason, WallTime now);

common::Result<WorkflowRun> getWorkflowRun(Database& db, Id run_id);
common::Result<std::optional<WorkflowRun>> latestRunForNode(Database& db, const std::string& kind,
                                                            Id node_id);
common::Result<std::optional<WorkflowRun>> latestRunForSubject(Database& db,
                                                               const std::string& kind,
                                                               const std::string& subject);
struct WorkflowRunFilter {
  std::string kind, state, step;
  PageRequest page;
};
common::Result<Page<WorkflowRun>> listWorkflowRuns(Database& db, const WorkflowRunFilter& filter);
// Counts of open runs per step and finished runs per state, for progress displays.
common::Result<std::vector<std::pair<std::string, std::int64_t>>> workflowRunCounts(
    Database& db, const std::string& kind);
common::Result<std::vector<WorkflowEventRecord>> workflowRunEvents(Database& db, Id run_id);
common::Result<std::vector<WorkflowEventRecord>> nodeTimeline(Database& db, Id node_id);

// Admission: true when the run holds (or now takes) a slot of (scope, key) with fewer than `cap`
// holders; cap 0 means unlimited. Counted under an advisory lock on (scope, key).
common::Result<bool> acquireWorkflowSlot(Database& db, Id run_id, const std::string& scope,
                                         const std::string& key, int cap, WallTime now);

}  // namespace inventory

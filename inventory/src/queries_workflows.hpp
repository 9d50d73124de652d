// SQL of workflow runs, their timeline and admission slots (migration 0004). Every time is a
// parameter in microseconds since the epoch (the engine's clock), never now().
#pragma once

#include "db.hpp"

// A time parameter: $n holds microseconds since the epoch.
#define INVENTORY_WF_TS(n) "(timestamptz 'epoch' + $" #n "::bigint * interval '1 microsecond')"
// A time column read back as microseconds since the epoch.
#define INVENTORY_WF_MICROS(col) "(extract(epoch FROM " col ") * 1000000)::bigint"

// Columns read by detail::runFromRow() (workflow_runs_rows.cpp).
#define INVENTORY_WF_RUN_COLUMNS \
  "id, kind, subject, state, step, attempt, " INVENTORY_WF_MICROS("next_run_at")              \
  ", waiting_for, wakeups, lease_owner, lease_epoch, context::text, node_id, site, rack,"     \
  " reason, detail::text, " INVENTORY_WF_MICROS("step_started_at")                            \
  ", created_by, iso8601(created_at), iso8601(updated_at), iso8601(finished_at)"

// Columns read by detail::workflowEventFromRow().
#define INVENTORY_WF_EVENT_COLUMNS                          \
  "id, run_id, node_id, iso8601(at), " INVENTORY_WF_MICROS( \
      "at") ", actor, step, kind, message, detail::text, duration_ms"

// Inserts the events of a JSON array ({"at", "actor", "step", "kind", "message", "detail",
// "duration_ms"}) in array order, from rows `src` with columns (id, node_id).
#define INVENTORY_WF_INSERT_EVENTS(src, param)                                            \
  "INSERT INTO workflow_events (run_id, node_id, at, actor, step, kind, message, detail," \
  " duration_ms)"                                                                         \
  " SELECT " src ".id, " src                                                              \
  ".node_id,"                                                                             \
  " timestamptz 'epoch' + (x.e->>'at')::bigint * interval '1 microsecond',"               \
  " coalesce(x.e->>'actor', ''), coalesce(x.e->>'step', ''), x.e->>'kind',"               \
  " coalesce(x.e->>'message', ''), coalesce(x.e->'detail', '{}'),"                        \
  " (x.e->>'duration_ms')::double precision"                                              \
  " FROM " src ", jsonb_array_elements($" #param                                          \
  "::jsonb) WITH ORDINALITY AS x(e, n)"                                                   \
  " ORDER BY x.n"

// Wakes, per slot freed in CTE `freed` (scope, key), the oldest open run waiting for it.
#define INVENTORY_WF_WAKE_SLOT_WAITERS(run_param, now_param) \
  "UPDATE workflow_runs w SET wakeups = w.wakeups + 1,"                                        \
  " next_run_at = least(w.next_run_at, " INVENTORY_WF_TS(now_param) ")"                        \
  " WHERE w.id IN (SELECT (SELECT r.id FROM workflow_runs r WHERE r.state = 'running'"         \
  " AND r.id <> $" #run_param " AND r.waiting_for = 'slot:' || f.scope || ':' || f.key"       \
  " ORDER BY r.id LIMIT 1) FROM freed f)"

namespace inventory::detail {

// Runs ----------------------------------------------------------------------------------------

// workflow_runs_open_subject_key: a second open run of (kind, subject) inserts nothing.
constexpr Query kInsertWorkflowRun{
    "insert_workflow_run",
    "INSERT INTO workflow_runs (kind, subject, step, next_run_at, context, node_id, site, rack,"
    " created_by, step_started_at, created_at, updated_at)"
    " VALUES ($1, $2, $3, " INVENTORY_WF_TS(4) ", $5::jsonb, $6, $7, $8, $9, " INVENTORY_WF_TS(
        4) ", " INVENTORY_WF_TS(4) ", " INVENTORY_WF_TS(4) ")"
                                   " ON CONFLICT (kind, subject) WHERE state = 'running' DO NOTHING"
                                   " RETURNING " INVENTORY_WF_RUN_COLUMNS};
constexpr Query kSelectOpenRunOfSubject{"select_open_workflow_run_of_subject",
                                        "SELECT " INVENTORY_WF_RUN_COLUMNS
                                        " FROM workflow_runs WHERE kind = $1 AND subject = $2"
                                        " AND state = 'running'"};
constexpr Query kInsertWorkflowEvents{
    "insert_workflow_events",
    "WITH src AS (SELECT id, node_id FROM workflow_runs WHERE id = $1) " INVENTORY_WF_INSERT_EVENTS(
        "src", 2)};

// Claims and outcomes --------------------------------------------------------------------------

// Replica liveness (replica_liveness.cpp): a session-level advisory lock (class, key), the
// two-int4 form, which pg_locks shows as (classid, objid, objsubid 2).
constexpr int kLivenessLockClass = 1886547830;  // "prov"
constexpr Query kTakeLivenessLock{"take_liveness_lock",
                                  "SELECT pg_try_advisory_lock($1::int4, $2::int4)"};
constexpr Query kHoldsLivenessLock{
    "holds_liveness_lock",
    "SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted"
    " AND pid = pg_backend_pid() AND classid::bigint = $1 AND objid::bigint = $2"
    " AND objsubid = 2)"};

// $1 now, $2 owner, $3 lease expiry, $4 limit, $5 the claimer's liveness key (NULL: none),
// $6 kLivenessLockClass, $7 whether the claimer may take over runs of dead replicas.
// Due: a free lease, an expired one, or one whose holder's liveness lock is gone (the replica's
// connection dropped), the last only while the claimer's own lock is held (after a PostgreSQL
// restart nobody's is, until each replica takes its own again). pg_locks is read once per claim
// (MATERIALIZED), this database only. SKIP LOCKED: replicas never wait on each other.
constexpr Query kClaimDueRuns{
    "claim_due_workflow_runs",
    "WITH live AS MATERIALIZED (SELECT objid::bigint AS k FROM pg_locks"
    " WHERE locktype = 'advisory' AND granted AND objsubid = 2"
    " AND classid::bigint = $6"
    " AND database = (SELECT oid FROM pg_database WHERE datname = current_database())),"
    " due AS (SELECT id AS due_id FROM workflow_runs WHERE state = 'running'"
    " AND next_run_at <= " INVENTORY_WF_TS(1) " AND (lease_expires_at IS NULL"
    " OR lease_expires_at <= " INVENTORY_WF_TS(1)
    " OR ($7::boolean AND $5::bigint IN (SELECT k FROM live)"
    " AND lease_live_key IS NOT NULL AND lease_live_key::bigint NOT IN (SELECT k FROM live)))"
    " ORDER BY next_run_at LIMIT $4 FOR UPDATE SKIP LOCKED)"
    " UPDATE workflow_runs SET lease_owner = $2, lease_expires_at = " INVENTORY_WF_TS(3)
    ", lease_epoch = lease_epoch + 1, lease_live_key = $5::int4 FROM due WHERE id = due_id"
    " RETURNING " INVENTORY_WF_RUN_COLUMNS};

// One statement, so one round trip and atomic: the outcome fenced by (id, owner, epoch), its
// events, and for a finished run its slots freed and their oldest waiters woken.
// $1 id, $2 owner, $3 epoch, $4 state, $5 step, $6 attempt, $7 is_wait, $8 wakeups seen,
// $9 next_run_at, $10 waiting_for, $11 step changed, $12 context, $13 node_id, $14 site,
// $15 rack, $16 reason, $17 detail, $18 events, $19 now.
constexpr Query kCompleteStep{
    "complete_workflow_step",
    "WITH upd AS (UPDATE workflow_runs SET state = $4::text, step = $5, attempt = $6,"
    " next_run_at = CASE WHEN $7::boolean AND wakeups <> $8::bigint THEN " INVENTORY_WF_TS(19)
    " ELSE " INVENTORY_WF_TS(9) " END, waiting_for = $10,"
    " step_started_at = CASE WHEN $11::boolean THEN " INVENTORY_WF_TS(19)
    " ELSE step_started_at END, context = $12::jsonb, node_id = $13::bigint, site = $14,"
    " rack = $15, reason = $16, detail = $17::jsonb, lease_owner = NULL,"
    " lease_expires_at = NULL, updated_at = " INVENTORY_WF_TS(19)
    ", finished_at = CASE WHEN $4::text = 'running' THEN NULL ELSE " INVENTORY_WF_TS(19) " END"
    " WHERE id = $1 AND lease_owner = $2 AND lease_epoch = $3 AND state = 'running'"
    " RETURNING id, node_id, state),"
    " ev AS (" INVENTORY_WF_INSERT_EVENTS("upd", 18) " RETURNING 1),"
    " freed AS (DELETE FROM workflow_slots s USING upd WHERE s.run_id = upd.id"
    " AND upd.state <> 'running' RETURNING s.scope, s.key),"
    " woken AS (" INVENTORY_WF_WAKE_SLOT_WAITERS(1, 19) " RETURNING 1)"
    " SELECT (SELECT count(*) FROM upd), (SELECT count(*) FROM ev), (SELECT count(*) FROM woken)"};

// The heartbeat: $1 owner, $2 run ids, $3 their epochs (bigint[] of the same length), $4 the
// new expiry. Returns the (id, epoch) pairs still held.
constexpr Query kRenewLeases{
    "renew_workflow_leases",
    "UPDATE workflow_runs w SET lease_expires_at = " INVENTORY_WF_TS(4)
    " FROM unnest($2::bigint[], $3::bigint[]) AS h(run_id, epoch)"
    " WHERE w.id = h.run_id AND w.lease_owner = $1 AND w.lease_epoch = h.epoch"
    " AND w.state = 'running' RETURNING w.id, w.lease_epoch"};

// A step's intent, before a dangerous action: $1 id, $2 owner, $3 epoch, $4 context, $5 now,
// $6 the new lease expiry.
constexpr Query kRecordIntent{
    "record_workflow_intent",
    "UPDATE workflow_runs SET context = $4::jsonb, lease_expires_at = " INVENTORY_WF_TS(6)
    ", updated_at = " INVENTORY_WF_TS(5)
    " WHERE id = $1 AND lease_owner = $2 AND lease_epoch = $3 AND state = 'running'"};

constexpr Query kReleaseLeases{"release_workflow_leases",
                               "UPDATE workflow_runs SET lease_owner = NULL,"
                               " lease_expires_at = NULL WHERE lease_owner = $1"
                               " AND id = ANY($2::bigint[]) AND state = 'running'"};

// Signals ---------------------------------------------------------------------------------------

constexpr Query kSignalRun{"signal_workflow_run",
                           "UPDATE workflow_runs SET wakeups = wakeups + 1,"
                           " next_run_at = least(next_run_at, " INVENTORY_WF_TS(2) ")"
                           " WHERE id = $1 AND state = 'running'"};
constexpr Query kSignalNodeRun{"signal_node_workflow_run",
                               "UPDATE workflow_runs SET wakeups = wakeups + 1,"
                               " next_run_at = least(next_run_at, " INVENTORY_WF_TS(3) ")"
                               " WHERE kind = $1 AND node_id = $2 AND state = 'running'"};

// Operator actions -----------------------------------------------------------------------------

constexpr Query kLockRun{"lock_workflow_run",
                         "SELECT state, kind, subject FROM workflow_runs WHERE id = $1 FOR UPDATE"};
constexpr Query kOtherOpenRunOfSubject{"other_open_workflow_run_of_subject",
                                       "SELECT id FROM workflow_runs WHERE kind = $1"
                                       " AND subject = $2 AND state = 'running' AND id <> $3"};
constexpr Query kReopenRun{"reopen_workflow_run",
                           "UPDATE workflow_runs SET state = 'running', step = $2, attempt = 0,"
                           " next_run_at = " INVENTORY_WF_TS(3) ", waiting_for = '',"
                           " reason = '', detail = '{}', step_started_at = " INVENTORY_WF_TS(3)
                           ", updated_at = " INVENTORY_WF_TS(3) ", finished_at = NULL,"
                           " lease_owner = NULL, lease_expires_at = NULL WHERE id = $1"};
constexpr Query kCancelRun{"cancel_workflow_run",
                           "UPDATE workflow_runs SET state = 'cancelled', reason = $2,"
                           " updated_at = " INVENTORY_WF_TS(3) ", finished_at = " INVENTORY_WF_TS(
                               3) ", lease_owner = NULL, lease_expires_at = NULL WHERE id = $1"};
// $1 run, $2 now.
constexpr Query kReleaseRunSlots{"release_workflow_run_slots",
                                 "WITH freed AS (DELETE FROM workflow_slots WHERE run_id = $1 "
                                 "RETURNING scope, key) " INVENTORY_WF_WAKE_SLOT_WAITERS(1, 2)};

// Reads -----------------------------------------------------------------------------------------

constexpr Query kSelectRun{"select_workflow_run",
                           "SELECT " INVENTORY_WF_RUN_COLUMNS " FROM workflow_runs WHERE id = $1"};
constexpr Query kLatestRunForNode{"latest_workflow_run_for_node",
                                  "SELECT " INVENTORY_WF_RUN_COLUMNS
                                  " FROM workflow_runs WHERE node_id = $2 AND kind = $1"
                                  " ORDER BY id DESC LIMIT 1"};
constexpr Query kLatestRunForSubject{"latest_workflow_run_for_subject",
                                     "SELECT " INVENTORY_WF_RUN_COLUMNS
                                     " FROM workflow_runs WHERE kind = $1 AND subject = $2"
                                     " ORDER BY id DESC LIMIT 1"};
// Empty filters match everything; keyset pagination on id.
constexpr Query kListRuns{"list_workflow_runs",
                          "SELECT " INVENTORY_WF_RUN_COLUMNS
                          " FROM workflow_runs WHERE ($1 = '' OR kind = $1)"
                          " AND ($2 = '' OR state = $2) AND ($3 = '' OR step = $3) AND id > $4"
                          " ORDER BY id LIMIT $5"};
// Open runs counted per step, finished ones per state.
constexpr Query kRunCounts{"workflow_run_counts",
                           "SELECT CASE WHEN state = 'running' THEN step ELSE state END AS name,"
                           " count(*) FROM workflow_runs WHERE kind = $1 GROUP BY 1 ORDER BY 1"};
constexpr Query kRunEvents{"workflow_run_events",
                           "SELECT " INVENTORY_WF_EVENT_COLUMNS
                           " FROM workflow_events WHERE run_id = $1 ORDER BY id"};
constexpr Query kNodeTimeline{"workflow_node_timeline",
                              "SELECT " INVENTORY_WF_EVENT_COLUMNS
                              " FROM workflow_events WHERE node_id = $1 ORDER BY id"};

// Slots ----------------------------------------------------------------------------------------

// Serialises the count-then-insert of one (scope, key) across replicas.
constexpr Query kLockSlotKey{"lock_workflow_slot_key",
                             "SELECT pg_advisory_xact_lock(hashtext($1::text || ':' || $2::text))"};
// $1 run, $2 scope, $3 key, $4 cap (0: unlimited), $5 now. Returns the key the run already holds
// in this scope (NULL when none) and whether a slot was taken now.
constexpr Query kTakeSlot{
    "take_workflow_slot",
    "WITH held AS (SELECT key FROM workflow_slots WHERE run_id = $1 AND scope = $2),"
    " ins AS (INSERT INTO workflow_slots (run_id, scope, key, acquired_at)"
    " SELECT $1, $2, $3, " INVENTORY_WF_TS(5) " WHERE NOT EXISTS (SELECT 1 FROM held)"
    " AND ($4::integer = 0 OR (SELECT count(*) FROM workflow_slots"
    " WHERE scope = $2 AND key = $3) < $4::integer) RETURNING 1)"
    " SELECT (SELECT key FROM held), (SELECT count(*) FROM ins)"};

}  // namespace inventory::detail

// The durable workflow engine. Runs live in PostgreSQL (inventory/workflow_runs.hpp); a replica
// claims due runs with FOR UPDATE SKIP LOCKED under a lease, executes one step of each on a
// worker, and writes the outcome only if it still holds the lease epoch it claimed with. While
// steps execute, one heartbeat thread renews the leases of all of them in one round trip, so a
// step may outlast the lease; one whose lease is lost anyway is fenced: fence() and
// recordIntent() say false and its outcome is dropped. Several replicas share one database; a
// replica killed mid-step loses nothing: its liveness lock goes with its connection (its leases
// expire, failing that) and another resumes the runs at once, re-running at most the step that
// was in flight (steps are idempotent, and dangerous ones record intent first).
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "inventory/database.hpp"
#include "inventory/workflow_runs.hpp"
#include "workflows/clock.hpp"
#include "workflows/step.hpp"

namespace workflows {

struct EngineOptions {
  std::string owner;             // this replica's name in leases; empty: "<host>:<pid>:<random>"
  std::size_t workers = 16;      // steps executing at once in this replica
  Duration lease{60000};         // a claimed run is this replica's for this long
  Duration poll_interval{200};   // how often an idle replica looks for due runs
  std::size_t claim_batch = 64;  // most runs claimed per round trip
  // How often the heartbeat renews the leases of the steps executing. Unset: lease / 3;
  // zero: never (a step that outlasts the lease loses its run). Only with start(); runOnce()
  // callers renew with renewLeases().
  std::optional<Duration> heartbeat = std::nullopt;
  // start() holds a liveness lock in PostgreSQL for this replica (inventory/replica_liveness.hpp)
  // and stamps its key on the runs it claims: when this process dies its connection drops, the
  // lock goes with it, and the other replicas take its runs at their next claim instead of at
  // lease expiry. runOnce() callers never hold one (their runs wait for the lease).
  bool take_over_on_disconnect = true;
  // How long this replica's own liveness lock must have been held before it takes the runs of
  // a replica whose lock is gone: after a PostgreSQL restart every lock is gone at once, and
  // each live replica takes its own back within a second or two (its keeper thread).
  Duration take_over_grace{5000};
  // Tests only, a deterministic kill point: asked after each step returns and before its outcome
  // is written; true makes this execution end as if the replica had died there (its calls made,
  // its recorded intents kept, its outcome and events never written, its lease left to expire),
  // so a take-over by another engine is tested without signals or sleeps.
  std::function<bool(const RunInfo& run, const StepOutcome& outcome)> die_before_commit = {};
};

struct StartRequest {
  std::string kind;
  std::string subject;
  nlohmann::json context = nlohmann::json::object();
  std::optional<inventory::Id> node_id;
  std::string site, rack;
  std::string actor;                   // who started it: "dhcp", "operator:alice"
  std::optional<std::string> at_step;  // default: the workflow's first step
};

struct StartResult {
  inventory::Id run_id = 0;
  bool created = false;  // false: an open run for (kind, subject) was already there
};

// Figures for the benchmark and /metrics.
struct EngineStats {
  std::uint64_t steps_executed = 0;
  std::uint64_t outcomes_lost = 0;  // outcomes refused because the lease had moved on
  std::uint64_t claim_round_trips = 0;
  std::uint64_t claimed = 0;
  std::uint64_t lease_renewals = 0;       // leases extended (heartbeat, fence, intent)
  std::uint64_t renewal_round_trips = 0;  // heartbeat round trips
  std::uint64_t fenced = 0;               // executions that learned they lost their lease
  std::uint64_t intents_recorded = 0;     // recordIntent() calls that wrote the context
};

class Engine {
 public:
  Engine(inventory::DatabasePtr db, std::shared_ptr<Clock> clock, EngineOptions options = {});
  ~Engine();  // stop()
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // Before start()/runOnce(). A programming error (duplicate kind, unknown step name in
  // first_step/failure_step) throws std::logic_error.
  void registerWorkflow(WorkflowDef def);

  // Idempotent per (kind, subject) while a run is open. Unknown kind: InvalidArgument
  // "unknown_workflow".
  common::Result<StartResult> start(const StartRequest& request);

  // Makes the run due now (a wake-up: the step looks at the world again). Harmless when the run
  // is finished or executing (then its next wait ends at once).
  common::Result<void> signal(inventory::Id run_id);
  // Signals the open run of `kind` for this node, if any.
  common::Result<void> signalNode(const std::string& kind, inventory::Id node_id);

  // Operator actions, each audited by the caller and written to the timeline with `actor`:
  // a failed or cancelled run re-enters `step` (default: the step it failed in) with a fresh
  // budget; Conflict "run_open" when another run of the subject is open.
  common::Result<void> retry(inventory::Id run_id, const std::string& actor,
                             const std::optional<std::string>& step = std::nullopt);
  // Ends an open run as cancelled with `reason`. Conflict "run_finished" when it is not open.
  common::Result<void> cancel(inventory::Id run_id, const std::string& actor,
                              const std::string& reason);

  // Tests and tools: claims what is due now and executes one step of each on the calling
  // thread. Returns the number of steps executed.
  common::Result<std::size_t> runOnce();

  // The heartbeat, once: renews the lease of every step this replica is executing in one round
  // trip; an execution whose lease is gone is marked fenced. Returns the leases renewed. The
  // heartbeat thread calls it every `heartbeat`; tests call it to drive a heartbeat.
  common::Result<std::size_t> renewLeases();

  // Starts the dispatcher, `workers` worker threads and the heartbeat; stop() lets in-flight
  // steps finish (still renewing their leases) and writes their outcomes. Runs claimed but not
  // started are released (lease cleared).
  void start();
  void stop();

  EngineStats stats() const;
  // Prometheus text: provisioner_workflow_step_duration_seconds{workflow,step} (histogram),
  // provisioner_workflow_step_outcomes_total{workflow,step,outcome},
  // provisioner_workflow_failures_total{workflow,step,reason}, and the engine counters
  // (provisioner_workflow_lease_renewals_total, provisioner_workflow_fenced_total, ...).
  void renderMetrics(std::string& out) const;
  const std::string& owner() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace workflows

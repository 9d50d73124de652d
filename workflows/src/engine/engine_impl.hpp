// The engine's insides, shared by engine.cpp (API), execute.cpp (one step of one run),
// dispatch.cpp (threads) and leases.cpp (heartbeat and fencing). Private to workflows/src/engine.
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

#include "claim_liveness.hpp"
#include "in_flight.hpp"
#include "inventory/replica_liveness.hpp"
#include "step_metrics.hpp"
#include "workflows/engine.hpp"

namespace workflows {

// A registered workflow with its steps indexed by name.
struct RegisteredWorkflow {
  WorkflowDef def;
  std::map<std::string, const StepDef*> steps;  // into def.steps, which never moves

  const StepDef* step(const std::string& name) const {
    auto it = steps.find(name);
    return it == steps.end() ? nullptr : it->second;
  }
};

struct Engine::Impl {
  inventory::DatabasePtr db;
  std::shared_ptr<Clock> clock;
  EngineOptions options;
  std::map<std::string, std::unique_ptr<RegisteredWorkflow>> workflows;
  detail::StepMetrics metrics;

  std::atomic<std::uint64_t> steps_executed{0};
  std::atomic<std::uint64_t> outcomes_lost{0};
  std::atomic<std::uint64_t> claim_round_trips{0};
  std::atomic<std::uint64_t> claimed{0};
  std::atomic<std::uint64_t> lease_renewals{0};
  std::atomic<std::uint64_t> renewal_round_trips{0};
  std::atomic<std::uint64_t> fenced{0};
  std::atomic<std::uint64_t> intents_recorded{0};

  detail::InFlightLeases in_flight;  // the steps executing now and their leases

  // Held between start() and stop() (dispatch.cpp); its keeper thread checks it once a second.
  std::unique_ptr<inventory::ReplicaLiveness> liveness;
  // Whether to claim now, the key to stamp on claimed runs, and whether to take over dead
  // replicas' runs now (claim_liveness.hpp).
  detail::ClaimLiveness claimLiveness() const;
  // Set while claims wait for the liveness lock (logged once per wait).
  std::atomic<bool> claims_paused{false};

  std::mutex rng_mutex;
  std::mt19937_64 rng{std::random_device{}()};

  // Dispatcher and workers (dispatch.cpp). `mutex` guards everything below it.
  std::mutex mutex;
  std::condition_variable work_cv;      // workers: a run was queued, or stopping
  std::condition_variable dispatch_cv;  // dispatcher: a worker freed up, poked, or stopping
  std::deque<inventory::WorkflowRun> queue;
  std::size_t busy = 0;
  bool running = false;
  bool stopping = false;
  bool poked = false;
  std::thread dispatcher;
  std::vector<std::thread> workers;
  // The heartbeat outlives the workers in stop(): steps finishing still renew their leases.
  std::condition_variable heartbeat_cv;
  bool heartbeat_stopping = false;
  std::thread heartbeat;

  const RegisteredWorkflow* find(const std::string& kind) const;

  // Claims up to `limit` due runs for this replica.
  common::Result<std::vector<inventory::WorkflowRun>> claim(std::size_t limit);
  // Executes the current step of a claimed run and writes its outcome (execute.cpp).
  void execute(const inventory::WorkflowRun& run);
  // A run became due now: the local dispatcher looks again without waiting a poll interval.
  void poke();
  // base * 2^attempt, capped, +-20%.
  Duration backoff(const StepDef& step, int attempt);

  void dispatchLoop();
  void workerLoop();

  // leases.cpp. The heartbeat interval (options.heartbeat, default lease / 3; zero: none).
  Duration heartbeatEvery() const;
  void heartbeatLoop(Duration every);
  // One heartbeat round trip for every execution in flight; marks the lost ones.
  common::Result<std::size_t> renewInFlight();
  // What StepContext::fence() and recordIntent() do for `execution`.
  LeaseFence fenceFor(const detail::InFlightLeases::Handle& execution);
  bool confirmLease(const detail::InFlightLeases::Handle& execution);
  bool recordIntent(const detail::InFlightLeases::Handle& execution, const nlohmann::json& data);
  void noteLost(const detail::Execution& execution, const char* how);
};

}  // namespace workflows

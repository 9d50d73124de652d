// The engine's insides, shared by engine.cpp (API), execute.cpp (one step of one run) and
// dispatch.cpp (threads). Private to workflows/src/engine.
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
};

}  // namespace workflows

// Helpers for the engine tests: a migrated fresh database, polling with a deadline, short reads
// of runs and their timelines, and gates that hold a step where the test wants it.
#pragma once

#include <catch2/catch.hpp>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/result.hpp"
#include "inventory/database.hpp"
#include "inventory/workflow_runs.hpp"
#include "workflows/engine.hpp"

namespace engine_test {

template <class T>
std::string describe(const common::Result<T>& r) {
  if (r.ok()) return "ok";
  const auto& e = r.error();
  return std::string(common::toString(e.kind)) + " " + e.code + ": " + e.message + " [" + e.detail +
         "]";
}

// Evaluates `result` once, explains it, and requires success.
#define ENGINE_REQUIRE_OK(result)                     \
  do {                                                \
    const auto& engine_ok_result_ = (result);         \
    INFO(::engine_test::describe(engine_ok_result_)); \
    REQUIRE(engine_ok_result_.ok());                  \
  } while (false)

struct TestDb {
  std::string url;
  inventory::DatabasePtr db;
};

// A new database with every migration applied.
TestDb freshDb(std::size_t pool_size = 8);

// Polls `condition` every few milliseconds until it holds or `timeout` passes.
bool eventually(const std::function<bool()>& condition, std::chrono::seconds timeout);

inventory::WorkflowRun runOf(inventory::Database& db, inventory::Id run_id);
// The kinds of a run's timeline entries, in order.
std::vector<std::string> eventKinds(inventory::Database& db, inventory::Id run_id);
std::size_t countKind(const std::vector<std::string>& kinds, const std::string& kind);

// runOnce until it executes nothing (at most `rounds` times); returns the steps executed.
std::size_t drain(workflows::Engine& engine, int rounds = 20);

// A one-step workflow whose step is `run`.
workflows::WorkflowDef oneStep(const std::string& kind,
                               std::function<workflows::StepOutcome(workflows::StepContext&)> run);

// Milliseconds from `now` until `t` (negative when past).
long long msUntil(workflows::TimePoint t, workflows::TimePoint now);

// Holds a step where the test wants it: the step calls pass() and blocks until the test, having
// seen it arrive (waitArrived), opens the gate. Waits are bounded so a broken test fails instead
// of hanging.
class Gate {
 public:
  void pass();
  bool waitArrived(std::chrono::seconds timeout = std::chrono::seconds(30));
  void open();

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  bool arrived_ = false;
  bool opened_ = false;
};

// engine.runOnce() on a thread of its own (a replica executing a step while the test acts).
// Destroyed, it opens `gates` and joins, so a failed check never leaves a step blocked.
class BackgroundRunOnce {
 public:
  BackgroundRunOnce(workflows::Engine& engine, std::vector<Gate*> gates);
  ~BackgroundRunOnce();
  BackgroundRunOnce(const BackgroundRunOnce&) = delete;
  BackgroundRunOnce& operator=(const BackgroundRunOnce&) = delete;
  // Joins; the steps runOnce() executed (-1 when it failed).
  long long join();

 private:
  std::vector<Gate*> gates_;
  long long executed_ = -1;
  std::thread thread_;
};

// Opens a gate when the scope ends: declared after an engine, it lets the engine's stop() join
// a worker that a failed check left at the gate.
struct OpenOnExit {
  Gate& gate;
  ~OpenOnExit() { gate.open(); }
};

}  // namespace engine_test

// Helpers for the engine tests: a migrated fresh database, polling with a deadline, and short
// reads of runs and their timelines.
#pragma once

#include <catch2/catch.hpp>

#include <chrono>
#include <functional>
#include <string>
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

}  // namespace engine_test

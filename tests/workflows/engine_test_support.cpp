#include "engine_test_support.hpp"

#include <thread>

#include "inventory/migrations.hpp"
#include "support/test_database.hpp"

namespace engine_test {

TestDb freshDb(std::size_t pool_size) {
  TestDb t;
  t.url = testing::freshDatabaseUrl();
  auto files = inventory::loadMigrations(testing::migrationsDir());
  ENGINE_REQUIRE_OK(files);
  ENGINE_REQUIRE_OK(inventory::applyMigrations(t.url, *files));
  auto db = inventory::Database::connect(t.url, pool_size);
  ENGINE_REQUIRE_OK(db);
  t.db = *db;
  return t;
}

bool eventually(const std::function<bool()>& condition, std::chrono::seconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (condition()) return true;
    // Polling interval of a bounded wait for another thread or process, not synchronisation.
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return condition();
}

inventory::WorkflowRun runOf(inventory::Database& db, inventory::Id run_id) {
  auto run = inventory::getWorkflowRun(db, run_id);
  ENGINE_REQUIRE_OK(run);
  return *run;
}

std::vector<std::string> eventKinds(inventory::Database& db, inventory::Id run_id) {
  auto events = inventory::workflowRunEvents(db, run_id);
  ENGINE_REQUIRE_OK(events);
  std::vector<std::string> kinds;
  for (const auto& e : *events) kinds.push_back(e.kind);
  return kinds;
}

std::size_t countKind(const std::vector<std::string>& kinds, const std::string& kind) {
  return static_cast<std::size_t>(std::count(kinds.begin(), kinds.end(), kind));
}

std::size_t drain(workflows::Engine& engine, int rounds) {
  std::size_t total = 0;
  for (int i = 0; i < rounds; ++i) {
    auto n = engine.runOnce();
    ENGINE_REQUIRE_OK(n);
    if (*n == 0) break;
    total += *n;
  }
  return total;
}

workflows::WorkflowDef oneStep(const std::string& kind,
                               std::function<workflows::StepOutcome(workflows::StepContext&)> run) {
  workflows::WorkflowDef def;
  def.kind = kind;
  def.first_step = "only";
  def.steps.push_back({"only", std::move(run)});
  return def;
}

long long msUntil(workflows::TimePoint t, workflows::TimePoint now) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(t - now).count();
}

void Gate::pass() {
  std::unique_lock lock(mutex_);
  arrived_ = true;
  cv_.notify_all();
  cv_.wait_for(lock, std::chrono::seconds(60), [this] { return opened_; });
}

bool Gate::waitArrived(std::chrono::seconds timeout) {
  std::unique_lock lock(mutex_);
  return cv_.wait_for(lock, timeout, [this] { return arrived_; });
}

void Gate::open() {
  std::lock_guard lock(mutex_);
  opened_ = true;
  cv_.notify_all();
}

BackgroundRunOnce::BackgroundRunOnce(workflows::Engine& engine, std::vector<Gate*> gates)
    : gates_(std::move(gates)), thread_([this, &engine] {
        auto n = engine.runOnce();
        executed_ = n ? static_cast<long long>(*n) : -1;
      }) {}

BackgroundRunOnce::~BackgroundRunOnce() {
  join();
}

long long BackgroundRunOnce::join() {
  if (thread_.joinable()) {
    for (Gate* gate : gates_) gate->open();
    thread_.join();
  }
  return executed_;
}

}  // namespace engine_test

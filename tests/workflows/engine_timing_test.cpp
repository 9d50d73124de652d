// The engine with a fake clock: next, persisted waits, signals, backoff and the retry budget.
#include <atomic>

#include "engine_test_support.hpp"

using namespace std::chrono_literals;
using engine_test::drain;
using engine_test::msUntil;
using engine_test::runOf;
using workflows::StepContext;
using workflows::StepOutcome;

namespace {

struct Fixture {
  engine_test::TestDb t = engine_test::freshDb();
  std::shared_ptr<workflows::FakeClock> clock = std::make_shared<workflows::FakeClock>();
  workflows::Engine engine{t.db, clock, workflows::EngineOptions{"test-replica"}};

  inventory::Id start(const std::string& kind, const std::string& subject) {
    workflows::StartRequest req;
    req.kind = kind;
    req.subject = subject;
    req.actor = "test";
    auto started = engine.start(req);
    ENGINE_REQUIRE_OK(started);
    REQUIRE(started->created);
    return started->run_id;
  }
  std::size_t once() {
    auto n = engine.runOnce();
    ENGINE_REQUIRE_OK(n);
    return *n;
  }
};

}  // namespace

TEST_CASE("Engine next goes on at once and a wait is due at its time and not before",
          "[engine][timers]") {
  Fixture f;
  std::atomic<int> polls{0};
  workflows::WorkflowDef def;
  def.kind = "timers";
  def.first_step = "a";
  def.steps.push_back({"a", [](StepContext&) { return StepOutcome::next("b"); }});
  def.steps.push_back({"b", [&](StepContext& ctx) {
                         if (++polls == 1) {
                           return StepOutcome::waitUntil(ctx.now() + 10s, "agent_result");
                         }
                         return StepOutcome::succeed();
                       }});
  f.engine.registerWorkflow(def);
  const auto id = f.start("timers", "node-1");

  REQUIRE(f.once() == 1);  // a -> b, due now
  CHECK(runOf(*f.t.db, id).step == "b");
  REQUIRE(f.once() == 1);  // b waits
  auto run = runOf(*f.t.db, id);
  CHECK(run.waiting_for == "agent_result");
  CHECK(msUntil(run.next_run_at, f.clock->now()) == 10000);
  CHECK(f.once() == 0);
  f.clock->advance(9999ms);
  CHECK(f.once() == 0);
  f.clock->advance(1ms);
  CHECK(f.once() == 1);
  CHECK(runOf(*f.t.db, id).state == "succeeded");
  CHECK(polls == 2);
}

TEST_CASE("Engine retry backs off exponentially with jitter and honours an explicit delay",
          "[engine][backoff]") {
  Fixture f;
  std::atomic<int> tries{0};
  workflows::WorkflowDef def = engine_test::oneStep("flaky", [&](StepContext&) {
    ++tries;
    if (tries <= 2) return StepOutcome::retry("bmc_busy", "503 from the BMC");
    if (tries == 3) return StepOutcome::retry("bmc_busy", "Retry-After", 5s);
    return StepOutcome::succeed();
  });
  def.steps[0].max_attempts = 10;
  def.steps[0].backoff_base = 1000ms;
  def.steps[0].backoff_cap = 60000ms;
  f.engine.registerWorkflow(def);
  const auto id = f.start("flaky", "node-1");

  // Try n (0-based) waits base * 2^n, +-20%.
  for (long long base : {1000LL, 2000LL}) {
    REQUIRE(f.once() == 1);
    auto run = runOf(*f.t.db, id);
    const long long delay = msUntil(run.next_run_at, f.clock->now());
    CHECK(delay >= base * 8 / 10);
    CHECK(delay <= base * 12 / 10);
    f.clock->advance(std::chrono::milliseconds(delay - 1));
    CHECK(f.once() == 0);
    f.clock->advance(1ms);
  }
  REQUIRE(f.once() == 1);  // the third try asks for 5 s exactly
  auto run = runOf(*f.t.db, id);
  CHECK(run.attempt == 3);
  CHECK(msUntil(run.next_run_at, f.clock->now()) == 5000);
  f.clock->advance(5s);
  REQUIRE(f.once() == 1);
  run = runOf(*f.t.db, id);
  CHECK(run.state == "succeeded");
  CHECK(engine_test::countKind(engine_test::eventKinds(*f.t.db, id), "retry") == 3);
}

TEST_CASE("Engine backoff is capped", "[engine][backoff]") {
  Fixture f;
  workflows::WorkflowDef def = engine_test::oneStep(
      "capped", [](StepContext&) { return StepOutcome::retry("down", "still down"); });
  def.steps[0].max_attempts = 20;
  def.steps[0].backoff_base = 1000ms;
  def.steps[0].backoff_cap = 4000ms;
  f.engine.registerWorkflow(def);
  const auto id = f.start("capped", "node-1");
  for (int i = 0; i < 6; ++i) {
    REQUIRE(f.once() == 1);
    const long long delay = msUntil(runOf(*f.t.db, id).next_run_at, f.clock->now());
    CHECK(delay <= 4800);
    if (i >= 2) CHECK(delay >= 3200);  // 1000 * 2^2 reaches the cap
    f.clock->advance(5s);
  }
}

TEST_CASE("Engine signal ends a wait early", "[engine][signal]") {
  Fixture f;
  std::atomic<int> polls{0};
  f.engine.registerWorkflow(engine_test::oneStep("waiter", [&](StepContext& ctx) {
    if (++polls == 1) return StepOutcome::waitUntil(ctx.now() + 1h, "agent_result");
    return StepOutcome::succeed();
  }));
  const auto id = f.start("waiter", "node-1");
  REQUIRE(f.once() == 1);
  CHECK(f.once() == 0);
  ENGINE_REQUIRE_OK(f.engine.signal(id));
  CHECK(f.once() == 1);
  CHECK(runOf(*f.t.db, id).state == "succeeded");
  // A signal to a finished run is harmless.
  ENGINE_REQUIRE_OK(f.engine.signal(id));
  CHECK(f.once() == 0);
}

TEST_CASE("Engine signal arriving during a step that then waits makes the run due at once",
          "[engine][signal]") {
  Fixture f;
  std::atomic<int> polls{0};
  f.engine.registerWorkflow(engine_test::oneStep("racer", [&](StepContext& ctx) {
    if (++polls == 1) {
      // The agent calls back while the step is still deciding to wait for it.
      auto signalled = f.engine.signal(ctx.run().id);
      REQUIRE(signalled.ok());
      return StepOutcome::waitUntil(ctx.now() + 1h, "agent_result");
    }
    return StepOutcome::succeed();
  }));
  const auto id = f.start("racer", "node-1");
  REQUIRE(f.once() == 1);
  auto run = runOf(*f.t.db, id);
  CHECK(run.waiting_for == "agent_result");
  CHECK(msUntil(run.next_run_at, f.clock->now()) <= 0);
  CHECK(f.once() == 1);
  CHECK(runOf(*f.t.db, id).state == "succeeded");
}

TEST_CASE("Engine retry budget exhausted goes to the failure step with the failure",
          "[engine][budget]") {
  Fixture f;
  nlohmann::json seen;
  workflows::WorkflowDef def;
  def.kind = "budget";
  def.first_step = "probe";
  def.failure_step = "quarantine";
  def.steps.push_back(
      {"probe",
       [](StepContext&) { return StepOutcome::retry("bmc_unreachable", "connection refused"); }, 3,
       100ms, 1000ms});
  def.steps.push_back({"quarantine", [&](StepContext& ctx) {
                         seen = ctx.data()["failure"];
                         return StepOutcome::fail("quarantined", "held for a person");
                       }});
  f.engine.registerWorkflow(def);
  const auto id = f.start("budget", "node-1");
  for (int i = 0; i < 3; ++i) {
    REQUIRE(f.once() == 1);
    f.clock->advance(2s);
  }
  auto run = runOf(*f.t.db, id);
  REQUIRE(run.step == "quarantine");
  REQUIRE(f.once() == 1);
  REQUIRE(seen.is_object());
  CHECK(seen["step"] == "probe");
  CHECK(seen["reason"] == "retry_budget_exhausted");
  CHECK(seen["detail"]["last_reason"] == "bmc_unreachable");
  CHECK(seen["detail"]["attempts"] == 3);
  CHECK(seen["message"].get<std::string>().find("probe") != std::string::npos);
  run = runOf(*f.t.db, id);
  CHECK(run.state == "failed");
  CHECK(run.reason == "quarantined");
  CHECK(!run.finished_at.empty());
  // A failure in the failure step ends the run; retried, it starts over where it failed.
  ENGINE_REQUIRE_OK(f.engine.retry(id, "operator:alice"));
  run = runOf(*f.t.db, id);
  CHECK(run.state == "running");
  CHECK(run.step == "probe");
  CHECK(run.attempt == 0);
}

TEST_CASE("Engine patient retries spend no budget within the step's patience, then do",
          "[engine][budget]") {
  // A BMC out of sessions frees them when they expire: its retries (patient) must not spend a
  // 3-try budget in seconds and quarantine the node, but must not go on for ever either.
  Fixture f;
  std::atomic<int> tries{0};
  workflows::WorkflowDef def = engine_test::oneStep("sessions", [&](StepContext&) {
    ++tries;
    auto o = StepOutcome::retry("bmc_session_limit", "no free session");
    o.patient = true;
    return o;
  });
  def.steps[0].max_attempts = 3;
  def.steps[0].backoff_base = 1000ms;
  def.steps[0].backoff_cap = 8000ms;
  def.steps[0].patience = 60000ms;
  f.engine.registerWorkflow(def);
  const auto id = f.start("sessions", "node-1");
  long long waited = 0;
  while (waited < 60000) {
    REQUIRE(f.once() == 1);
    auto run = runOf(*f.t.db, id);
    REQUIRE(run.state == "running");
    CHECK(run.attempt == 0);  // nothing spent
    const long long delay = msUntil(run.next_run_at, f.clock->now());
    CHECK(delay <= 9600);  // doubling, capped
    f.clock->advance(std::chrono::milliseconds(delay));
    waited += delay;
  }
  CHECK(tries >= 8);
  // Patience spent: the budget counts again, and runs out.
  for (int i = 0; i < 3; ++i) {
    REQUIRE(f.once() == 1);
    f.clock->advance(10s);
  }
  auto run = runOf(*f.t.db, id);
  CHECK(run.state == "failed");
  CHECK(run.reason == "retry_budget_exhausted");
}

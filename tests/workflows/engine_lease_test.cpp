// Leases, idempotent starts, operator actions and steps that misbehave.
#include <atomic>

#include "engine_test_support.hpp"

using namespace std::chrono_literals;
using engine_test::runOf;
using workflows::StepContext;
using workflows::StepOutcome;

namespace {

struct Fixture {
  engine_test::TestDb t = engine_test::freshDb();
  std::shared_ptr<workflows::FakeClock> clock = std::make_shared<workflows::FakeClock>();
  workflows::Engine engine{t.db, clock, workflows::EngineOptions{"live-replica"}};

  common::Result<workflows::StartResult> start(const std::string& kind,
                                               const std::string& subject) {
    workflows::StartRequest req;
    req.kind = kind;
    req.subject = subject;
    req.actor = "test";
    return engine.start(req);
  }
  inventory::Id started(const std::string& kind, const std::string& subject) {
    auto s = start(kind, subject);
    ENGINE_REQUIRE_OK(s);
    return s->run_id;
  }
  std::size_t once() {
    auto n = engine.runOnce();
    ENGINE_REQUIRE_OK(n);
    return *n;
  }
};

}  // namespace

TEST_CASE("Engine resumes a run whose lease expired and refuses the dead owner's outcome",
          "[engine][lease]") {
  Fixture f;
  std::atomic<int> runs{0};
  f.engine.registerWorkflow(engine_test::oneStep("leased", [&](StepContext&) {
    ++runs;
    return StepOutcome::succeed();
  }));
  const auto id = f.started("leased", "node-1");

  // A replica claims the run and dies before writing anything.
  auto claimed = inventory::claimDueRuns(*f.t.db, "dead-replica", f.clock->now(), 60s, 10);
  ENGINE_REQUIRE_OK(claimed);
  REQUIRE(claimed->size() == 1);
  const auto dead = claimed->front();
  CHECK(dead.lease_owner == "dead-replica");

  CHECK(f.once() == 0);  // leased to someone else
  f.clock->advance(59s);
  CHECK(f.once() == 0);
  f.clock->advance(1s);
  CHECK(f.once() == 1);
  CHECK(runs == 1);
  auto run = runOf(*f.t.db, id);
  CHECK(run.state == "succeeded");
  CHECK(run.lease_epoch == dead.lease_epoch + 1);

  // The dead replica wakes up and tries to write its outcome: refused, nothing written.
  inventory::StepCompletion late;
  late.run_id = id;
  late.owner = "dead-replica";
  late.epoch = dead.lease_epoch;
  late.state = "failed";
  late.step = dead.step;
  late.reason = "late";
  late.now = f.clock->now();
  late.events.push_back({});
  late.events.back().kind = "late_event";
  auto written = inventory::completeStep(*f.t.db, late);
  ENGINE_REQUIRE_OK(written);
  CHECK_FALSE(*written);
  run = runOf(*f.t.db, id);
  CHECK(run.state == "succeeded");
  CHECK(engine_test::countKind(engine_test::eventKinds(*f.t.db, id), "late_event") == 0);
}

TEST_CASE("Engine outcome of a step whose lease moved on is dropped and counted",
          "[engine][lease]") {
  Fixture f;
  auto other = std::make_unique<workflows::Engine>(f.t.db, f.clock,
                                                   workflows::EngineOptions{"fast-replica"});
  std::atomic<int> runs{0};
  auto step = [&](StepContext&) {
    if (++runs == 1) {
      // While this slow try runs the lease expires and another replica finishes the run.
      f.clock->advance(61s);
      auto n = other->runOnce();
      REQUIRE(n.ok());
      REQUIRE(*n == 1);
    }
    return StepOutcome::next("second");
  };
  for (auto* e : {&f.engine, other.get()}) {
    workflows::WorkflowDef def = engine_test::oneStep("slow", step);
    def.steps.push_back({"second", [](StepContext&) { return StepOutcome::succeed(); }});
    e->registerWorkflow(def);
  }
  const auto id = f.started("slow", "node-1");
  CHECK(f.once() == 1);
  CHECK(f.engine.stats().outcomes_lost == 1);
  CHECK(other->stats().outcomes_lost == 0);
  auto kinds = engine_test::eventKinds(*f.t.db, id);
  CHECK(engine_test::countKind(kinds, "step_completed") == 1);
  CHECK(runOf(*f.t.db, id).step == "second");
}

TEST_CASE("Engine start is idempotent per kind and subject while a run is open",
          "[engine][start]") {
  Fixture f;
  f.engine.registerWorkflow(
      engine_test::oneStep("single", [](StepContext&) { return StepOutcome::succeed(); }));
  auto first = f.start("single", "bmc:aa");
  auto again = f.start("single", "bmc:aa");
  auto other = f.start("single", "bmc:bb");
  ENGINE_REQUIRE_OK(first);
  ENGINE_REQUIRE_OK(again);
  ENGINE_REQUIRE_OK(other);
  CHECK(first->created);
  CHECK_FALSE(again->created);
  CHECK(again->run_id == first->run_id);
  CHECK(other->run_id != first->run_id);
  CHECK(engine_test::drain(f.engine) == 2);
  auto after = f.start("single", "bmc:aa");  // the first one finished: a new run
  ENGINE_REQUIRE_OK(after);
  CHECK(after->created);
  CHECK(after->run_id != first->run_id);

  auto unknown = f.start("nope", "x");
  REQUIRE_FALSE(unknown.ok());
  CHECK(unknown.error().code == "unknown_workflow");
}

TEST_CASE("Engine operator retry reopens a failed run and cancel ends an open one",
          "[engine][operator]") {
  Fixture f;
  std::atomic<int> runs{0};
  f.engine.registerWorkflow(engine_test::oneStep("ops", [&](StepContext& ctx) {
    if (++runs == 1) return StepOutcome::fail("broken", "the BMC refused the setting");
    return StepOutcome::waitUntil(ctx.now() + 1h, "agent_result");
  }));
  const auto id = f.started("ops", "node-1");
  REQUIRE(f.once() == 1);
  auto run = runOf(*f.t.db, id);
  CHECK(run.state == "failed");
  CHECK(run.reason == "broken");

  ENGINE_REQUIRE_OK(f.engine.retry(id, "operator:alice"));
  auto again = f.engine.retry(id, "operator:alice");
  REQUIRE_FALSE(again.ok());
  CHECK(again.error().code == "run_open");
  REQUIRE(f.once() == 1);
  run = runOf(*f.t.db, id);
  CHECK(run.state == "running");
  CHECK(run.waiting_for == "agent_result");

  ENGINE_REQUIRE_OK(f.engine.cancel(id, "operator:bob", "rack moved"));
  run = runOf(*f.t.db, id);
  CHECK(run.state == "cancelled");
  CHECK(run.reason == "rack moved");
  auto twice = f.engine.cancel(id, "operator:bob", "again");
  REQUIRE_FALSE(twice.ok());
  CHECK(twice.error().code == "run_finished");
  ENGINE_REQUIRE_OK(f.engine.signal(id));
  CHECK(f.once() == 0);

  auto events = inventory::workflowRunEvents(*f.t.db, id);
  ENGINE_REQUIRE_OK(events);
  bool retried_by_alice = false, cancelled_by_bob = false;
  for (const auto& e : *events) {
    retried_by_alice = retried_by_alice || (e.kind == "retried" && e.actor == "operator:alice");
    cancelled_by_bob = cancelled_by_bob || (e.kind == "cancelled" && e.actor == "operator:bob");
  }
  CHECK(retried_by_alice);
  CHECK(cancelled_by_bob);
}

TEST_CASE("Engine fails a run whose step throws or is unknown without stopping",
          "[engine][errors]") {
  Fixture f;
  f.engine.registerWorkflow(engine_test::oneStep("thrower", [](StepContext&) -> StepOutcome {
    throw std::runtime_error("index out of range");
  }));
  f.engine.registerWorkflow(engine_test::oneStep(
      "jumper", [](StepContext&) { return StepOutcome::next("no_such_step"); }));
  const auto thrower = f.started("thrower", "a");
  const auto jumper = f.started("jumper", "b");
  CHECK(engine_test::drain(f.engine) == 2);
  auto run = runOf(*f.t.db, thrower);
  CHECK(run.state == "failed");
  CHECK(run.reason == "step_exception");
  run = runOf(*f.t.db, jumper);
  CHECK(run.state == "failed");
  CHECK(run.reason == "unknown_step");

  // A run left by another version of the service at a step this one does not know.
  workflows::StartRequest req;
  req.kind = "jumper";
  req.subject = "c";
  req.at_step = "gone";
  auto refused = f.engine.start(req);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().code == "unknown_step");
  inventory::NewWorkflowRun stale;
  stale.kind = "jumper";
  stale.subject = "d";
  stale.step = "gone";
  stale.now = f.clock->now();
  auto created = inventory::createWorkflowRun(*f.t.db, stale);
  ENGINE_REQUIRE_OK(created);
  CHECK(f.once() == 1);
  run = runOf(*f.t.db, created->run.id);
  CHECK(run.state == "failed");
  CHECK(run.reason == "unknown_step");
}

TEST_CASE("Engine registerWorkflow refuses programming errors", "[engine][register]") {
  Fixture f;
  auto ok = [](StepContext&) { return StepOutcome::succeed(); };
  workflows::WorkflowDef bad_first = engine_test::oneStep("bad_first", ok);
  bad_first.first_step = "missing";
  CHECK_THROWS_AS(f.engine.registerWorkflow(bad_first), std::logic_error);
  workflows::WorkflowDef bad_failure = engine_test::oneStep("bad_failure", ok);
  bad_failure.failure_step = "missing";
  CHECK_THROWS_AS(f.engine.registerWorkflow(bad_failure), std::logic_error);
  f.engine.registerWorkflow(engine_test::oneStep("twice", ok));
  CHECK_THROWS_AS(f.engine.registerWorkflow(engine_test::oneStep("twice", ok)), std::logic_error);
  CHECK_THROWS_AS(f.engine.registerWorkflow(engine_test::oneStep("Bad-Kind", ok)),
                  std::logic_error);
}

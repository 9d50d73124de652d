// Two replicas on one database with the fake clock: the heartbeat keeps the run of a step that
// outlasts its lease, and a replica that lost its lease cannot act (recordIntent, fence) or
// commit its outcome. Each test holds replica 1's step at a gate while it moves the clock.
#include <atomic>

#include "engine_test_support.hpp"

using namespace std::chrono_literals;
using engine_test::BackgroundRunOnce;
using engine_test::Gate;
using engine_test::runOf;
using workflows::StepContext;
using workflows::StepOutcome;

namespace {

using StepFn = std::function<StepOutcome(StepContext&)>;

struct Replicas {
  engine_test::TestDb t = engine_test::freshDb();
  std::shared_ptr<workflows::FakeClock> clock = std::make_shared<workflows::FakeClock>();
  workflows::Engine first{t.db, clock, options("replica-1")};
  workflows::Engine second{t.db, clock, options("replica-2")};

  static workflows::EngineOptions options(const std::string& owner) {
    workflows::EngineOptions o;
    o.owner = owner;
    o.lease = 60s;
    o.heartbeat = workflows::Duration::zero();  // these tests beat by hand (renewLeases)
    return o;
  }
  // The same workflow in both replicas, each with its own step function.
  void define(const StepFn& on_first, const StepFn& on_second) {
    first.registerWorkflow(engine_test::oneStep("flash", on_first));
    second.registerWorkflow(engine_test::oneStep("flash", on_second));
  }
  inventory::Id started(workflows::Engine* via = nullptr) {
    workflows::StartRequest req;
    req.kind = "flash";
    req.subject = "node-1";
    req.actor = "test";
    auto s = (via ? via : &first)->start(req);
    ENGINE_REQUIRE_OK(s);
    return s->run_id;
  }
  std::size_t secondOnce() {
    auto n = second.runOnce();
    ENGINE_REQUIRE_OK(n);
    return *n;
  }
  std::size_t renewFirst() {
    auto n = first.renewLeases();
    ENGINE_REQUIRE_OK(n);
    return *n;
  }
};

nlohmann::json contextOf(inventory::Database& db, inventory::Id id) {
  return nlohmann::json::parse(runOf(db, id).context_json, nullptr, false);
}

std::string actorOf(inventory::Database& db, inventory::Id id, const std::string& kind) {
  auto events = inventory::workflowRunEvents(db, id);
  ENGINE_REQUIRE_OK(events);
  for (const auto& e : *events) {
    if (e.kind == kind) return e.actor;
  }
  return "";
}

// The step of a dangerous action: record the intent, act only when it was recorded.
StepOutcome flashOnce(StepContext& ctx, std::atomic<int>& flashes) {
  ctx.data()["flash_intent"] = {{"image", "bmc-2.1"}};
  if (!ctx.recordIntent()) return StepOutcome::retry("lease_lost", "not flashing: fenced out");
  ++flashes;
  return StepOutcome::succeed("flashed");
}

}  // namespace

TEST_CASE("Engine heartbeat keeps the run of a step that outlasts its lease",
          "[engine][lease][heartbeat]") {
  Replicas r;
  Gate gate;
  std::atomic<int> executions{0};
  std::atomic<bool> still_ours{false};
  r.define(
      [&](StepContext& ctx) {
        ++executions;
        gate.pass();
        still_ours = ctx.fence();
        return StepOutcome::succeed();
      },
      [&](StepContext&) {
        ++executions;
        return StepOutcome::succeed();
      });
  const auto id = r.started();

  BackgroundRunOnce replica1(r.first, {&gate});
  REQUIRE(gate.waitArrived());
  r.clock->advance(40s);
  CHECK(r.renewFirst() == 1);  // leased until 100 s
  r.clock->advance(40s);
  CHECK(r.renewFirst() == 1);  // until 140 s
  r.clock->advance(50s);       // 130 s: the claim's lease ended at 60 s
  CHECK(r.secondOnce() == 0);
  CHECK(runOf(*r.t.db, id).lease_owner == "replica-1");

  gate.open();
  CHECK(replica1.join() == 1);
  CHECK(still_ours);
  CHECK(executions == 1);
  auto run = runOf(*r.t.db, id);
  CHECK(run.state == "succeeded");
  CHECK(actorOf(*r.t.db, id, "succeeded") == "replica-1");
  const auto stats = r.first.stats();
  CHECK(stats.outcomes_lost == 0);
  CHECK(stats.fenced == 0);
  CHECK(stats.renewal_round_trips == 2);
  CHECK(stats.lease_renewals == 3);  // two heartbeats and the fence
  CHECK(r.renewFirst() == 0);        // nothing in flight: no round trip
  CHECK(r.first.stats().renewal_round_trips == 2);
}

TEST_CASE("Engine replica whose lease expired cannot flash: the new owner flashes exactly once",
          "[engine][lease][fencing]") {
  Replicas r;
  Gate gate;
  std::atomic<int> flashes{0};
  r.define(
      [&](StepContext& ctx) {
        gate.pass();
        return flashOnce(ctx, flashes);
      },
      [&](StepContext& ctx) { return flashOnce(ctx, flashes); });
  const auto id = r.started();

  BackgroundRunOnce replica1(r.first, {&gate});
  REQUIRE(gate.waitArrived());
  r.clock->advance(61s);  // no heartbeat came: the lease is over
  CHECK(r.secondOnce() == 1);
  CHECK(flashes == 1);
  CHECK(runOf(*r.t.db, id).state == "succeeded");

  gate.open();  // replica 1's step goes on to its recordIntent(), which is refused
  CHECK(replica1.join() == 1);
  CHECK(flashes == 1);
  auto run = runOf(*r.t.db, id);
  CHECK(run.state == "succeeded");
  CHECK(actorOf(*r.t.db, id, "succeeded") == "replica-2");
  auto kinds = engine_test::eventKinds(*r.t.db, id);
  CHECK(engine_test::countKind(kinds, "retry") == 0);  // replica 1's outcome was not written
  CHECK(engine_test::countKind(kinds, "step_completed") == 1);
  CHECK(r.first.stats().fenced == 1);
  CHECK(r.first.stats().outcomes_lost == 1);
  CHECK(r.first.stats().intents_recorded == 0);
  CHECK(r.second.stats().intents_recorded == 1);
  CHECK(r.second.stats().outcomes_lost == 0);
}

TEST_CASE(
    "Engine recordIntent persists the context and renews the lease; the resuming replica "
    "sees the intent",
    "[engine][lease][intent]") {
  Replicas r;
  Gate before, after;
  std::atomic<int> flashes{0};
  std::string seen_intent;
  r.define(
      [&](StepContext& ctx) {
        before.pass();
        ctx.data()["flash_intent"] = {{"image", "bmc-2.1"}, {"by", "replica-1"}};
        if (!ctx.recordIntent()) return StepOutcome::retry("lease_lost", "fenced out");
        ++flashes;
        after.pass();  // replica 1 hangs after the flash (a stuck BMC call, a paused process)
        return StepOutcome::succeed("flashed");
      },
      [&](StepContext& ctx) {
        // Resumed: an intent means the flash may have happened; look at the world first.
        auto intent = ctx.data().find("flash_intent");
        if (intent != ctx.data().end()) {
          seen_intent = intent->value("image", "") + " by " + intent->value("by", "");
          if (flashes > 0) return StepOutcome::succeed("already flashed");
        }
        return flashOnce(ctx, flashes);
      });
  const auto id = r.started();

  BackgroundRunOnce replica1(r.first, {&before, &after});
  REQUIRE(before.waitArrived());
  CHECK_FALSE(contextOf(*r.t.db, id).contains("flash_intent"));
  r.clock->advance(50s);
  before.open();
  REQUIRE(after.waitArrived());  // the intent is recorded (lease until 110 s), the flash done
  const auto stored = contextOf(*r.t.db, id);
  REQUIRE(stored.contains("flash_intent"));
  CHECK(stored["flash_intent"].value("image", "") == "bmc-2.1");

  r.clock->advance(20s);  // 70 s: past the claim's lease, not the intent's renewal
  CHECK(r.secondOnce() == 0);
  r.clock->advance(41s);  // 111 s: replica 1 is presumed dead
  CHECK(r.secondOnce() == 1);
  CHECK(seen_intent == "bmc-2.1 by replica-1");
  CHECK(flashes == 1);

  after.open();
  CHECK(replica1.join() == 1);
  CHECK(flashes == 1);
  CHECK(r.first.stats().intents_recorded == 1);
  CHECK(r.first.stats().outcomes_lost == 1);
  CHECK(r.second.stats().intents_recorded == 0);
  auto run = runOf(*r.t.db, id);
  CHECK(run.state == "succeeded");
  CHECK(actorOf(*r.t.db, id, "succeeded") == "replica-2");
}

TEST_CASE("Engine heartbeat fences a step whose run was cancelled; fence() then says false",
          "[engine][lease][fencing]") {
  Replicas r;
  Gate gate;
  std::atomic<int> flashes{0};
  std::atomic<int> fence_answers{-1};
  r.define(
      [&](StepContext& ctx) {
        gate.pass();
        const bool ours = ctx.fence();
        fence_answers = ours ? 1 : 0;
        if (!ours) return StepOutcome::retry("lease_lost", "not erasing: fenced out");
        ++flashes;
        return StepOutcome::succeed();
      },
      [](StepContext&) { return StepOutcome::succeed(); });
  const auto id = r.started();

  BackgroundRunOnce replica1(r.first, {&gate});
  REQUIRE(gate.waitArrived());
  ENGINE_REQUIRE_OK(r.first.cancel(id, "operator:alice", "wrong rack"));
  CHECK(r.renewFirst() == 0);
  CHECK(r.first.stats().fenced == 1);

  gate.open();
  CHECK(replica1.join() == 1);
  CHECK(fence_answers == 0);
  CHECK(flashes == 0);
  CHECK(r.first.stats().fenced == 1);  // counted once: fence() knew without asking again
  CHECK(r.first.stats().outcomes_lost == 1);
  auto run = runOf(*r.t.db, id);
  CHECK(run.state == "cancelled");
  CHECK(run.reason == "wrong rack");
}

TEST_CASE("Engine heartbeat thread renews the leases of executing steps on its own",
          "[engine][lease][heartbeat]") {
  Replicas r;
  workflows::EngineOptions options = Replicas::options("replica-3");
  options.workers = 1;
  options.heartbeat = 5ms;  // real time; the leases are in the fake clock's time
  options.poll_interval = 10ms;
  workflows::Engine beating(r.t.db, r.clock, options);
  Gate gate;
  engine_test::OpenOnExit open_gate{gate};
  std::atomic<int> executions{0};
  beating.registerWorkflow(engine_test::oneStep("flash", [&](StepContext&) {
    ++executions;
    gate.pass();
    return StepOutcome::succeed();
  }));
  r.second.registerWorkflow(engine_test::oneStep("flash", [&](StepContext&) {
    ++executions;
    return StepOutcome::succeed();
  }));
  const auto id = r.started(&beating);

  beating.start();
  REQUIRE(gate.waitArrived());
  r.clock->advance(50s);
  // A beat counted now may have read the clock before the advance; the one after it did not.
  const auto beats = beating.stats().renewal_round_trips;
  REQUIRE(engine_test::eventually([&] { return beating.stats().renewal_round_trips >= beats + 2; },
                                  30s));
  r.clock->advance(50s);  // 100 s: renewed at 50 s or later, until 110 s or later
  CHECK(r.secondOnce() == 0);

  gate.open();
  REQUIRE(engine_test::eventually([&] { return runOf(*r.t.db, id).state == "succeeded"; }, 30s));
  beating.stop();
  CHECK(executions == 1);
  CHECK(beating.stats().fenced == 0);
  CHECK(beating.stats().outcomes_lost == 0);
  CHECK(actorOf(*r.t.db, id, "succeeded") == "replica-3");
}

TEST_CASE("Engine kill point: the replica dies after its call, the next owner checks the world",
          "[engine][lease][fencing][kill]") {
  engine_test::TestDb t = engine_test::freshDb();
  auto clock = std::make_shared<workflows::FakeClock>();
  auto dying = Replicas::options("replica-1");
  dying.die_before_commit = [](const workflows::RunInfo&, const StepOutcome&) { return true; };
  workflows::Engine first{t.db, clock, dying};
  workflows::Engine second{t.db, clock, Replicas::options("replica-2")};
  std::atomic<int> flashes{0};
  auto step = [&](StepContext& ctx) {
    // Resumed with an intent: look at the world (here, the flash count) before acting again.
    if (ctx.data().contains("flash_intent") && flashes > 0) {
      return StepOutcome::succeed("found flashed");
    }
    return flashOnce(ctx, flashes);
  };
  first.registerWorkflow(engine_test::oneStep("flash", step));
  second.registerWorkflow(engine_test::oneStep("flash", step));
  workflows::StartRequest req;
  req.kind = "flash";
  req.subject = "node-1";
  req.actor = "test";
  auto started = first.start(req);
  ENGINE_REQUIRE_OK(started);
  const auto id = started->run_id;

  auto ran = first.runOnce();
  ENGINE_REQUIRE_OK(ran);
  CHECK(*ran == 1);
  CHECK(flashes == 1);
  auto run = runOf(*t.db, id);
  CHECK(run.state == "running");
  CHECK(run.lease_owner == "replica-1");  // the dead replica's lease stands until it expires
  CHECK(contextOf(*t.db, id).contains("flash_intent"));
  CHECK(engine_test::countKind(engine_test::eventKinds(*t.db, id), "step_completed") == 0);

  auto early = second.runOnce();
  ENGINE_REQUIRE_OK(early);
  CHECK(*early == 0);
  clock->advance(61s);
  auto resumed = second.runOnce();
  ENGINE_REQUIRE_OK(resumed);
  CHECK(*resumed == 1);
  CHECK(flashes == 1);
  CHECK(runOf(*t.db, id).state == "succeeded");
  CHECK(actorOf(*t.db, id, "succeeded") == "replica-2");
}

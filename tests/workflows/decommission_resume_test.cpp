// A decommission whose replica dies inside the drives step, right after the intent of a drive's
// erase was recorded and the BMC took the erase: a second engine, once the lease expired, resumes
// the run from what recordIntent wrote, adopts the erase instead of starting another, verifies the
// drive and finishes with a certificate. Two engines on one database with the fake clock; the
// dead replica's step is held at a gate.
#include <catch2/catch.hpp>

#include "decommission/decommission_env.hpp"
#include "decommission_bench.hpp"
#include "engine_test_support.hpp"
#include "inventory/decommissions.hpp"
#include "workflows/engine.hpp"

namespace {

using decommission_test::Decommission;
using engine_test::BackgroundRunOnce;
using engine_test::Gate;
using engine_test::runOf;
using nlohmann::json;
using workflows::StepContext;
using workflows::StepOutcome;
using namespace std::chrono_literals;

workflows::EngineOptions replica(const std::string& owner) {
  workflows::EngineOptions o;
  o.owner = owner;
  o.lease = 60s;
  o.heartbeat = workflows::Duration::zero();  // no beats: the held step's lease runs out
  return o;
}

workflows::WorkflowDef decommissionWorkflow(const Decommission& d) {
  return workflows::nodeDecommissionWorkflow(d.env.life().deps, d.env.life().settings,
                                             d.env.roll.settings, d.env.settings);
}

}  // namespace

TEST_CASE("a replica killed after a drive erase's intent: the next one erases it exactly once",
          "[decommission][engine]") {
  Decommission d;
  REQUIRE(d.throughWipe({}).step == "drives");
  const json oob = d.oobDrives();
  REQUIRE(oob.size() > 0);
  auto db = d.bench.env().deps.db;
  auto clock = d.bench.env().deps.clock;

  Gate gate;
  workflows::Engine first(db, clock, replica("replica-1"));
  workflows::Engine second(db, clock, replica("replica-2"));
  auto held = decommissionWorkflow(d);
  for (auto& step : held.steps) {
    if (step.name != "drives") continue;
    // The real step, then the replica "dies": its outcome never reaches the database.
    step.run = [real = step.run, &gate](StepContext& ctx) {
      auto outcome = real(ctx);
      gate.pass();
      return outcome;
    };
  }
  first.registerWorkflow(held);
  second.registerWorkflow(decommissionWorkflow(d));

  workflows::StartRequest request;
  request.kind = workflows::kNodeDecommission;
  request.subject = workflows::decommissionSubject(d.id);
  request.context = d.bench.data();
  request.node_id = d.bench.nodeId();
  request.actor = "operator:alice";
  request.at_step = "drives";
  auto started = first.start(request);
  ENGINE_REQUIRE_OK(started);
  const auto run_id = started->run_id;

  BackgroundRunOnce dying(first, {&gate});
  REQUIRE(gate.waitArrived());
  REQUIRE(d.bench.requestCount("POST", "Drive.SecureErase") == 1);
  const json intent = json::parse(runOf(*db, run_id).context_json);
  INFO(intent.dump());
  REQUIRE(intent["drives"]["current"].contains("intent_at"));
  CHECK_FALSE(intent["drives"]["current"].contains("task"));  // written before the erase

  d.bench.advance(61s);  // no heartbeat came: the lease is over
  for (int i = 0; i < 200 && runOf(*db, run_id).state == "running"; ++i) {
    ENGINE_REQUIRE_OK(second.runOnce());
    d.bench.advance(10s);
  }
  const auto run = runOf(*db, run_id);
  INFO(run.context_json);
  CHECK(run.state == "succeeded");
  gate.open();
  dying.join();

  CHECK(d.bench.requestCount("POST", "Drive.SecureErase") == oob.size());
  const auto kinds = engine_test::eventKinds(*db, run_id);
  CHECK(engine_test::countKind(kinds, "drive_erase_adopted") == 1);
  CHECK(engine_test::countKind(kinds, "drive_verified") == oob.size());
  CHECK(first.stats().outcomes_lost == 1);
  const auto record = d.record();
  CHECK(record.state == "succeeded");
  CHECK(record.certificate_id);
  CHECK(d.bench.nodeState() == "retired");
}

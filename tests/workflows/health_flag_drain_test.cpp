// Health flag -> action through the scheduler hook, on a real PostgreSQL with a real HTTP
// scheduler: the upkeep raises a drain flag and starts its drain run; the scheduler hears one
// drain request for that node, with the flag's reason; an acknowledged flag is not acted on; an
// rma_candidate flag drains and records the candidate; a second pass, and a second run for the
// same flag (a replica that started one again), send nothing more; a run resumed after it
// recorded the action (its replica died before the hook) sends the drain once.
#include <catch2/catch.hpp>

#include "engine_test_support.hpp"
#include "inventory/gpu_flags.hpp"
#include "inventory/gpu_health.hpp"
#include "inventory/nodes.hpp"
#include "inventory/workflow_runs.hpp"
#include "scheduler_stub.hpp"
#include "workflows/health_flag_drain.hpp"
#include "workflows/health_upkeep.hpp"

namespace {

const workflows::Duration kCooldown = workflows::HealthUpkeepOptions{}.burn_in_cooldown;

using nlohmann::json;
namespace h = inventory::health;

using engine_test::Scheduler;

inventory::GpuFlag flagOf(inventory::Database& db, const std::string& serial) {
  inventory::FlagFilter filter;
  filter.serial = serial;
  auto flags = inventory::listFlags(db, filter);
  REQUIRE(flags);
  REQUIRE(flags->size() == 1);
  return flags->front();
}

// A reading of GPU `serial` in the node (so the flag names the node), and a drain flag's draft
// for it (XID 79).
h::FlagDraft readingAndDrainDraft(inventory::Database& db, inventory::Id node_id,
                                  const std::string& serial, h::Seconds now) {
  h::GpuSample s;
  s.serial = serial;
  s.temperature_c = 60;
  ENGINE_REQUIRE_OK(
      inventory::ingestHealthBatch(db, node_id, {now - std::chrono::minutes(1), {s}}, now));
  h::FlagDraft d;
  d.serial = serial;
  d.rule = "nvidia.xid_drain";
  d.severity = h::FlagSeverity::kCritical;
  d.action = h::FlagAction::kDrain;
  d.reason = "XID 79: fallen off the bus";
  d.evidence_json = "{}";
  d.raised_at = now - std::chrono::minutes(1);
  return d;
}

// The flag drain and release runs, their hook pointing at `scheduler`.
void registerFlagRuns(workflows::Engine& engine, const inventory::DatabasePtr& db,
                      const std::shared_ptr<workflows::FakeClock>& clock, Scheduler& scheduler) {
  workflows::RolloutSettings rollout;
  rollout.drain.url = "http://127.0.0.1:" + std::to_string(scheduler.port) + "/drain";
  const workflows::LifecycleDeps deps{db, nullptr, nullptr, clock};
  engine.registerWorkflow(workflows::gpuFlagDrainWorkflow(deps, {}, rollout));
  engine.registerWorkflow(workflows::gpuFlagReleaseWorkflow(deps, {}, rollout));
}

}  // namespace

TEST_CASE("a raised drain flag drains its node once through the scheduler hook",
          "[health][flags][actions]") {
  auto t = engine_test::freshDb();
  auto clock = std::make_shared<workflows::FakeClock>();
  workflows::Engine engine(t.db, clock, workflows::EngineOptions{"test-replica"});
  Scheduler scheduler;

  workflows::HealthUpkeepOptions upkeep;
  upkeep.interval = std::chrono::minutes(5);
  upkeep.start_run = [&engine](const workflows::StartRequest& r) { return engine.start(r); };
  engine.registerWorkflow(workflows::gpuHealthUpkeepWorkflow(t.db, upkeep));
  workflows::RolloutSettings rollout;
  rollout.drain.url = "http://127.0.0.1:" + std::to_string(scheduler.port) + "/drain";
  const workflows::LifecycleDeps deps{t.db, nullptr, nullptr, clock};
  engine.registerWorkflow(workflows::gpuFlagDrainWorkflow(deps, {}, rollout));

  // Three nodes: A's GPU has a double-bit ECC error (XID 48: drain), so has B's (acknowledged
  // by an operator before the drain run runs), C's GPU gets an rma_candidate flag.
  std::vector<inventory::Node> nodes;
  for (const char* serial : {"NODE-FD-A", "NODE-FD-B", "NODE-FD-C"}) {
    inventory::NodeSpec spec;
    spec.chassis_serial = serial;
    auto node = inventory::createNode(*t.db, spec, "test");
    ENGINE_REQUIRE_OK(node);
    nodes.push_back(*node);
  }
  const auto now = std::chrono::floor<std::chrono::seconds>(clock->now());
  for (int i = 0; i < 3; ++i) {
    h::GpuSample s;
    s.serial = std::string("GPU-FD-") + "ABC"[i];
    s.temperature_c = 60;
    if (i < 2) s.xids = {{48, now - std::chrono::minutes(2)}};
    ENGINE_REQUIRE_OK(inventory::ingestHealthBatch(*t.db, nodes[i].id,
                                                   {now - std::chrono::minutes(1), {s}}, now));
  }
  h::FlagDraft rma;
  rma.serial = "GPU-FD-C";
  rma.rule = "test.rma";
  rma.severity = h::FlagSeverity::kCritical;
  rma.action = h::FlagAction::kRmaCandidate;
  rma.reason = "test: repeat offender";
  rma.evidence_json = "{}";
  rma.raised_at = now - std::chrono::minutes(1);
  ENGINE_REQUIRE_OK(inventory::raiseFlags(*t.db, {rma}, now));

  // The upkeep's pass raises A's and B's flags and starts the three drain runs.
  ENGINE_REQUIRE_OK(workflows::ensureHealthUpkeepRun(engine));
  auto ran = engine.runOnce();
  ENGINE_REQUIRE_OK(ran);
  const auto a = flagOf(*t.db, "GPU-FD-A");
  const auto b = flagOf(*t.db, "GPU-FD-B");
  CHECK(a.action == "drain");
  CHECK(b.action == "drain");
  CHECK(a.action_at.empty());  // recorded by the drain run, not by the upkeep
  ENGINE_REQUIRE_OK(
      inventory::acknowledgeFlag(*t.db, b.id, "alice", "known bad, swap planned", now));

  engine_test::drain(engine);
  auto requests = scheduler.seen();
  REQUIRE(requests.size() == 2);
  std::map<std::string, json> by_node;
  for (const auto& r : requests) by_node[r["node"]["serial"].get<std::string>()] = r;
  REQUIRE(by_node.contains("NODE-FD-A"));
  REQUIRE(by_node.contains("NODE-FD-C"));
  CHECK_FALSE(by_node.contains("NODE-FD-B"));
  CHECK(by_node["NODE-FD-A"]["action"] == "drain");
  CHECK(by_node["NODE-FD-A"]["reason"] ==
        "drained: flag nvidia.xid48_dbe on GPU GPU-FD-A: " + a.reason);
  CHECK(by_node["NODE-FD-C"]["reason"] ==
        "drained: flag test.rma on GPU GPU-FD-C: " + std::string("test: repeat offender"));

  // The action is on the flag, with the run that carried it out; B's is not.
  const auto a_after = flagOf(*t.db, "GPU-FD-A");
  CHECK_FALSE(a_after.action_at.empty());
  REQUIRE(a_after.action_run_id);
  auto a_run = inventory::getWorkflowRun(*t.db, *a_after.action_run_id);
  ENGINE_REQUIRE_OK(a_run);
  CHECK(a_run->kind == workflows::kGpuFlagDrain);
  CHECK(a_run->state == "succeeded");
  const auto b_after = flagOf(*t.db, "GPU-FD-B");
  CHECK(b_after.state == "acknowledged");
  CHECK(b_after.action_at.empty());
  auto b_run = inventory::latestRunForSubject(*t.db, workflows::kGpuFlagDrain,
                                              workflows::flagDrainSubject(b.id));
  ENGINE_REQUIRE_OK(b_run);
  REQUIRE(b_run->has_value());
  CHECK((*b_run)->state == "succeeded");

  // Node A's timeline says why it was drained.
  auto timeline = inventory::nodeTimeline(*t.db, nodes[0].id);
  ENGINE_REQUIRE_OK(timeline);
  bool said_why = false;
  for (const auto& e : *timeline) {
    if (e.kind == "flag_drain" && e.message == by_node["NODE-FD-A"]["reason"]) said_why = true;
  }
  CHECK(said_why);

  // C is an RMA candidate: an event of the GPU and of node C's timeline.
  auto c_history = inventory::gpuHealthHistory(*t.db, "GPU-FD-C", now - std::chrono::hours(1),
                                               now + std::chrono::hours(1), h::Resolution::kRaw);
  ENGINE_REQUIRE_OK(c_history);
  std::vector<std::string> c_kinds;
  for (const auto& e : c_history->events) c_kinds.push_back(e.kind);
  CHECK(engine_test::countKind(c_kinds, "flag_action_started") == 1);
  CHECK(engine_test::countKind(c_kinds, "flag_drained") == 1);
  CHECK(engine_test::countKind(c_kinds, "rma_candidate") == 1);
  auto c_timeline = inventory::nodeTimeline(*t.db, nodes[2].id);
  ENGINE_REQUIRE_OK(c_timeline);
  std::vector<std::string> c_node_kinds;
  for (const auto& e : *c_timeline) c_node_kinds.push_back(e.kind);
  CHECK(engine_test::countKind(c_node_kinds, "rma_candidate") == 1);

  // A second pass of the upkeep starts nothing; a second run for A's flag (a replica that
  // started one again) sends nothing either.
  clock->advance(std::chrono::minutes(6));
  engine_test::drain(engine);
  auto again = workflows::startFlagActions(*t.db, upkeep.start_run, clock->now(), kCooldown);
  ENGINE_REQUIRE_OK(again);
  CHECK(again->started == 0);
  workflows::StartRequest retry;
  retry.kind = workflows::kGpuFlagDrain;
  retry.subject = workflows::flagDrainSubject(a.id) + ":again";
  retry.context = {{"flag_id", a.id}, {"node_id", nodes[0].id}};
  retry.node_id = nodes[0].id;
  retry.actor = "test";
  ENGINE_REQUIRE_OK(engine.start(retry));
  engine_test::drain(engine);
  CHECK(scheduler.seen().size() == 2);
  CHECK(flagOf(*t.db, "GPU-FD-A").action_run_id == a_after.action_run_id);
}

TEST_CASE("a drain run resumed after it recorded the action drains the node, once",
          "[health][flags][actions]") {
  auto t = engine_test::freshDb();
  auto clock = std::make_shared<workflows::FakeClock>();
  workflows::Engine engine(t.db, clock, workflows::EngineOptions{"test-replica"});
  Scheduler scheduler;
  registerFlagRuns(engine, t.db, clock, scheduler);

  inventory::NodeSpec spec;
  spec.chassis_serial = "NODE-FD-R";
  auto node = inventory::createNode(*t.db, spec, "test");
  ENGINE_REQUIRE_OK(node);
  const auto now = std::chrono::floor<std::chrono::seconds>(clock->now());
  const auto d = readingAndDrainDraft(*t.db, node->id, "GPU-FD-R", now);
  auto raised = inventory::raiseFlags(*t.db, {d}, now);
  ENGINE_REQUIRE_OK(raised);
  REQUIRE(raised->raised.size() == 1);
  const auto flag = raised->raised[0];

  // The upkeep started the run; a replica ran its drain step up to the mark and died before
  // the hook was called: the action is recorded with this run, the scheduler heard nothing.
  workflows::StartRequest request;
  request.kind = workflows::kGpuFlagDrain;
  request.subject = workflows::flagDrainSubject(flag.id);
  request.context = {{"flag_id", flag.id}, {"node_id", node->id}};
  request.node_id = node->id;
  request.actor = "service";
  auto started = engine.start(request);
  ENGINE_REQUIRE_OK(started);
  auto marked = inventory::markFlagActionStarted(*t.db, flag.id, started->run_id, now);
  ENGINE_REQUIRE_OK(marked);
  REQUIRE(*marked);
  // The upkeep's next pass plans nothing for it (the action has started) ...
  auto pass = workflows::startFlagActions(
      *t.db, [&engine](const workflows::StartRequest& r) { return engine.start(r); }, clock->now(),
      kCooldown);
  ENGINE_REQUIRE_OK(pass);
  CHECK(pass->started == 0);
  // ... and the resumed run does not skip the drain: one request.
  engine_test::drain(engine);
  auto requests = scheduler.seen();
  REQUIRE(requests.size() == 1);
  CHECK(requests[0]["node"]["serial"] == "NODE-FD-R");
  CHECK(requests[0]["reason"] == "drained: flag nvidia.xid_drain on GPU GPU-FD-R: " + d.reason);
  CHECK(engine_test::runOf(*t.db, started->run_id).state == "succeeded");
}

TEST_CASE("clearing the flags that drained a node gives it back once, when nothing else holds it",
          "[health][flags][actions]") {
  auto t = engine_test::freshDb();
  auto clock = std::make_shared<workflows::FakeClock>();
  workflows::Engine engine(t.db, clock, workflows::EngineOptions{"test-replica"});
  Scheduler scheduler;
  registerFlagRuns(engine, t.db, clock, scheduler);
  auto start = [&engine](const workflows::StartRequest& r) { return engine.start(r); };

  // One node, two of its GPUs flagged with drain actions: both drain runs hold it.
  inventory::NodeSpec spec;
  spec.chassis_serial = "NODE-FR";
  auto node = inventory::createNode(*t.db, spec, "test");
  ENGINE_REQUIRE_OK(node);
  const auto now = std::chrono::floor<std::chrono::seconds>(clock->now());
  std::vector<h::FlagDraft> drafts;
  for (const char* serial : {"GPU-FR-0", "GPU-FR-1"}) {
    drafts.push_back(readingAndDrainDraft(*t.db, node->id, serial, now));
  }
  ENGINE_REQUIRE_OK(inventory::raiseFlags(*t.db, drafts, now));
  ENGINE_REQUIRE_OK(workflows::startFlagActions(*t.db, start, clock->now(), kCooldown));
  engine_test::drain(engine);
  REQUIRE(scheduler.seen().size() == 2);  // both drains (the hook is idempotent)
  const auto first = flagOf(*t.db, "GPU-FR-0");
  const auto second = flagOf(*t.db, "GPU-FR-1");

  // The first flag cleared: the other still holds the node, nothing is resumed.
  ENGINE_REQUIRE_OK(inventory::clearFlag(*t.db, first.id, "alice", "reseated", now));
  auto pass = workflows::startFlagActions(*t.db, start, clock->now(), kCooldown);
  ENGINE_REQUIRE_OK(pass);
  CHECK(pass->releases == 1);
  engine_test::drain(engine);
  CHECK(scheduler.seen().size() == 2);
  CHECK_FALSE(flagOf(*t.db, "GPU-FR-0").released_at.empty());

  // The second one cleared: the node goes back to the scheduler, once.
  ENGINE_REQUIRE_OK(inventory::clearFlag(*t.db, second.id, "alice", "swapped", now));
  ENGINE_REQUIRE_OK(workflows::startFlagActions(*t.db, start, clock->now(), kCooldown));
  engine_test::drain(engine);
  auto requests = scheduler.seen();
  REQUIRE(requests.size() == 3);
  CHECK(requests[2]["action"] == "resume");
  CHECK(requests[2]["node"]["serial"] == "NODE-FR");
  CHECK(requests[2]["reason"] ==
        "undrained: flag nvidia.xid_drain on GPU GPU-FR-1 cleared by alice");
  CHECK_FALSE(flagOf(*t.db, "GPU-FR-1").released_at.empty());

  // Released flags start nothing more; the GPU's history says what happened.
  auto again = workflows::startFlagActions(*t.db, start, clock->now(), kCooldown);
  ENGINE_REQUIRE_OK(again);
  CHECK(again->releases == 0);
  engine_test::drain(engine);
  CHECK(scheduler.seen().size() == 3);
  auto history = inventory::gpuHealthHistory(*t.db, "GPU-FR-1", now - std::chrono::hours(1),
                                             now + std::chrono::hours(1), h::Resolution::kRaw);
  ENGINE_REQUIRE_OK(history);
  std::vector<std::string> kinds;
  for (const auto& e : history->events) kinds.push_back(e.kind);
  CHECK(engine_test::countKind(kinds, "flag_released") == 1);
}

TEST_CASE("a flag's release is decided from the flags that still hold the node",
          "[health][flags][actions]") {
  inventory::GpuFlag flag;
  flag.state = "cleared";
  flag.action = "drain";
  flag.action_at = "2026-12-07T10:00:00.000000Z";
  using D = workflows::FlagReleaseDecision;
  CHECK(workflows::decideFlagRelease(flag, {}, "ready") == D::kUndrain);
  CHECK(workflows::decideFlagRelease(flag, {7}, "ready") == D::kStillHeld);
  CHECK(workflows::decideFlagRelease(flag, {}, "decommissioning") == D::kNodeOut);
  auto open = flag;
  open.state = "acknowledged";
  CHECK(workflows::decideFlagRelease(open, {}, "ready") == D::kNothing);
  auto never = flag;
  never.action_at.clear();  // cleared before its drain started: the node was never drained
  CHECK(workflows::decideFlagRelease(never, {}, "ready") == D::kNothing);
  auto done = flag;
  done.released_at = "2026-12-07T11:00:00.000000Z";
  CHECK(workflows::decideFlagRelease(done, {}, "ready") == D::kNothing);
  auto watch = flag;
  watch.action = "watch";
  CHECK(workflows::decideFlagRelease(watch, {}, "ready") == D::kNothing);
}

// A reset_at_idle flag carried out end to end on a real PostgreSQL with a real HTTP scheduler: a
// GPU reports a pending row remap; the upkeep raises nvidia.remap_pending and starts its
// gpu_flag_reset run; the scheduler drains the node; the run writes one resident task for the
// node's agent (however often it looks again); the agent (here its two calls to the store) takes
// it and reports the reset; a reading after the reset without the remap clears the flag and the
// scheduler resumes the node. A reset the agent could not do leaves the node drained and the flag
// open, the run failed with the agent's words; an agent that never answers times out.
#include <catch2/catch.hpp>

#include "engine_test_support.hpp"
#include "inventory/gpu_flags.hpp"
#include "inventory/gpu_health.hpp"
#include "inventory/nodes.hpp"
#include "inventory/resident_tasks.hpp"
#include "inventory/workflow_runs.hpp"
#include "scheduler_stub.hpp"
#include "workflows/health_flag_drain.hpp"
#include "workflows/health_upkeep.hpp"

namespace {

using nlohmann::json;
namespace h = inventory::health;

using engine_test::Scheduler;

struct Fleet {
  engine_test::TestDb t = engine_test::freshDb();
  std::shared_ptr<workflows::FakeClock> clock = std::make_shared<workflows::FakeClock>();
  workflows::Engine engine{t.db, clock, workflows::EngineOptions{"test-replica"}};
  Scheduler scheduler;

  Fleet() {
    workflows::HealthUpkeepOptions upkeep;
    upkeep.interval = std::chrono::minutes(5);
    upkeep.start_run = [this](const workflows::StartRequest& r) { return engine.start(r); };
    engine.registerWorkflow(workflows::gpuHealthUpkeepWorkflow(t.db, upkeep));
    workflows::RolloutSettings rollout;
    rollout.drain.url = "http://127.0.0.1:" + std::to_string(scheduler.port) + "/drain";
    rollout.timings.resident_task_timeout = std::chrono::minutes(10);
    const workflows::LifecycleDeps deps{t.db, nullptr, nullptr, clock};
    engine.registerWorkflow(workflows::gpuFlagResetWorkflow(deps, {}, rollout));
    engine.registerWorkflow(workflows::gpuFlagReleaseWorkflow(deps, {}, rollout));
  }

  h::Seconds now() const { return std::chrono::floor<std::chrono::seconds>(clock->now()); }

  inventory::Node node(const std::string& serial) {
    inventory::NodeSpec spec;
    spec.chassis_serial = serial;
    auto node = inventory::createNode(*t.db, spec, "test");
    ENGINE_REQUIRE_OK(node);
    return *node;
  }

  // One reading of `gpu` in `node`, sampled a second ago.
  void reading(const inventory::Node& node, const std::string& gpu, bool remap_pending) {
    h::GpuSample s;
    s.serial = gpu;
    s.temperature_c = 60;
    s.remap_pending = remap_pending;
    ENGINE_REQUIRE_OK(inventory::ingestHealthBatch(*t.db, node.id,
                                                   {now() - std::chrono::seconds(1), {s}}, now()));
  }

  // A minute later, everything due runs.
  void later() {
    clock->advance(std::chrono::minutes(1));
    engine_test::drain(engine);
  }

  inventory::GpuFlag flagOf(const std::string& serial) {
    inventory::FlagFilter filter;
    filter.serial = serial;
    auto flags = inventory::listFlags(*t.db, filter);
    REQUIRE(flags);
    REQUIRE(flags->size() == 1);
    return flags->front();
  }

  std::string runState(const inventory::GpuFlag& flag, std::string* failure = nullptr) {
    auto run = inventory::latestRunForSubject(*t.db, workflows::kGpuFlagReset,
                                              workflows::flagDrainSubject(flag.id));
    ENGINE_REQUIRE_OK(run);
    REQUIRE(run->has_value());
    if (failure) *failure = (*run)->reason;
    return (*run)->state;
  }
};

}  // namespace

TEST_CASE(
    "a reset_at_idle flag: drained, the GPU reset by the node's agent, flag cleared, node back",
    "[health][flags][actions][reset]") {
  Fleet f;
  const auto node = f.node("NODE-FR-A");
  f.reading(node, "GPU-FR-A", true);
  ENGINE_REQUIRE_OK(workflows::ensureHealthUpkeepRun(f.engine));
  engine_test::drain(f.engine);

  const auto flag = f.flagOf("GPU-FR-A");
  CHECK(flag.rule == "nvidia.remap_pending");
  CHECK(flag.action == "reset_at_idle");
  CHECK_FALSE(flag.action_at.empty());
  CHECK(f.scheduler.actionsFor("NODE-FR-A") == std::vector<std::string>{"drain"});

  // The run waits for the agent; looking again writes no second task.
  f.later();
  f.later();
  auto tasks = inventory::listResidentTasks(*f.t.db, node.id);
  ENGINE_REQUIRE_OK(tasks);
  REQUIRE(tasks->size() == 1);
  CHECK(tasks->front().kind == "gpu_reset");
  CHECK(tasks->front().gpu_serial == "GPU-FR-A");
  CHECK(tasks->front().state == "pending");
  CHECK(f.runState(flag) == "running");

  // The agent's next batch answer carries it; it resets and reports.
  auto delivered = inventory::deliverResidentTasks(*f.t.db, node.id, f.now());
  ENGINE_REQUIRE_OK(delivered);
  REQUIRE(delivered->size() == 1);
  CHECK(delivered->front().state == "delivered");
  ENGINE_REQUIRE_OK(inventory::finishResidentTask(*f.t.db, node.id, delivered->front().id, true,
                                                  "GPU reset; no row remap pending", f.now(),
                                                  f.now()));
  // A reading taken before the reset (still pending) decides nothing; the flag stays open.
  f.later();
  CHECK(f.flagOf("GPU-FR-A").state == "open");
  CHECK(f.runState(flag) == "running");

  // The next reading, after the reset, shows no remap pending.
  f.clock->advance(std::chrono::seconds(30));
  f.reading(node, "GPU-FR-A", false);
  f.clock->advance(std::chrono::seconds(2));
  f.later();
  const auto after = f.flagOf("GPU-FR-A");
  CHECK(after.state == "cleared");
  CHECK(after.cleared_by == "service");
  CHECK_FALSE(after.released_at.empty());
  CHECK(f.runState(flag) == "succeeded");
  CHECK(f.scheduler.actionsFor("NODE-FR-A") == std::vector<std::string>{"drain", "resume"});

  // The node's timeline tells the story.
  auto timeline = inventory::nodeTimeline(*f.t.db, node.id);
  ENGINE_REQUIRE_OK(timeline);
  std::vector<std::string> kinds;
  for (const auto& e : *timeline) kinds.push_back(e.kind);
  CHECK(engine_test::countKind(kinds, "flag_drain") == 1);
  CHECK(engine_test::countKind(kinds, "gpu_reset_requested") == 1);
  CHECK(engine_test::countKind(kinds, "gpu_reset") == 1);
  CHECK(engine_test::countKind(kinds, "flag_undrain") == 1);

  // Later passes start nothing again: no flag, no second run, no scheduler call.
  f.clock->advance(std::chrono::minutes(6));
  f.reading(node, "GPU-FR-A", false);
  f.later();
  f.later();
  CHECK(f.scheduler.actionsFor("NODE-FR-A").size() == 2);
  tasks = inventory::listResidentTasks(*f.t.db, node.id);
  ENGINE_REQUIRE_OK(tasks);
  CHECK(tasks->size() == 1);
}

TEST_CASE("a reset the agent could not do, or never reported, leaves the node drained",
          "[health][flags][actions][reset]") {
  Fleet f;
  const auto refused = f.node("NODE-FR-B");
  const auto silent = f.node("NODE-FR-C");
  f.reading(refused, "GPU-FR-B", true);
  f.reading(silent, "GPU-FR-C", true);
  ENGINE_REQUIRE_OK(workflows::ensureHealthUpkeepRun(f.engine));
  engine_test::drain(f.engine);
  const auto b = f.flagOf("GPU-FR-B");
  const auto c = f.flagOf("GPU-FR-C");

  auto delivered = inventory::deliverResidentTasks(*f.t.db, refused.id, f.now());
  ENGINE_REQUIRE_OK(delivered);
  REQUIRE(delivered->size() == 1);
  // Another node's agent cannot report this node's task.
  auto wrong = inventory::finishResidentTask(*f.t.db, silent.id, delivered->front().id, true, "",
                                             std::nullopt, f.now());
  REQUIRE_FALSE(wrong);
  CHECK(wrong.error().code == "resident_task_not_found");
  ENGINE_REQUIRE_OK(inventory::finishResidentTask(*f.t.db, refused.id, delivered->front().id, false,
                                                  "GPU 3 is in use: the reset was refused",
                                                  std::nullopt, f.now()));
  // The same report again (a retry after a lost answer) is taken; a different one is not.
  ENGINE_REQUIRE_OK(inventory::finishResidentTask(*f.t.db, refused.id, delivered->front().id, false,
                                                  "GPU 3 is in use: the reset was refused",
                                                  std::nullopt, f.now()));
  auto changed = inventory::finishResidentTask(*f.t.db, refused.id, delivered->front().id, true, "",
                                               std::nullopt, f.now());
  REQUIRE_FALSE(changed);
  CHECK(changed.error().code == "resident_task_finished");

  f.later();
  std::string failure;
  CHECK(f.runState(b, &failure) == "failed");
  CHECK(failure == "gpu_reset_failed");
  CHECK(f.flagOf("GPU-FR-B").state == "open");
  CHECK(f.scheduler.actionsFor("NODE-FR-B") == std::vector<std::string>{"drain"});

  // C's agent never answers: after the timeout the run fails and its task is cancelled.
  for (int i = 0; i < 12; ++i) f.later();
  CHECK(f.runState(c, &failure) == "failed");
  CHECK(failure == "agent_silent");
  auto tasks = inventory::listResidentTasks(*f.t.db, silent.id);
  ENGINE_REQUIRE_OK(tasks);
  REQUIRE(tasks->size() == 1);
  CHECK(tasks->front().state == "cancelled");
  CHECK(f.scheduler.actionsFor("NODE-FR-C") == std::vector<std::string>{"drain"});
  CHECK(f.flagOf("GPU-FR-C").state == "open");
}

TEST_CASE("an operator who clears a reset_at_idle flag while the run waits stops the reset",
          "[health][flags][actions][reset]") {
  Fleet f;
  const auto node = f.node("NODE-FR-D");
  f.reading(node, "GPU-FR-D", true);
  ENGINE_REQUIRE_OK(workflows::ensureHealthUpkeepRun(f.engine));
  engine_test::drain(f.engine);
  const auto flag = f.flagOf("GPU-FR-D");
  ENGINE_REQUIRE_OK(inventory::clearFlag(*f.t.db, flag.id, "alice", "reset by hand", f.now()));
  f.later();
  CHECK(f.runState(flag) == "succeeded");
  auto tasks = inventory::listResidentTasks(*f.t.db, node.id);
  ENGINE_REQUIRE_OK(tasks);
  REQUIRE(tasks->size() == 1);
  CHECK(tasks->front().state == "cancelled");
  // The release run (next upkeep pass) gives the node back.
  f.clock->advance(std::chrono::minutes(6));
  f.later();
  f.later();
  CHECK(f.scheduler.actionsFor("NODE-FR-D") == std::vector<std::string>{"drain", "resume"});
  CHECK_FALSE(f.flagOf("GPU-FR-D").released_at.empty());
}

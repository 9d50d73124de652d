// A rerun_burn_in flag carried out end to end on a real PostgreSQL with a real HTTP scheduler: the
// upkeep starts its gpu_flag_burn_in run; the scheduler drains the node; the run writes one
// resident burn-in task carrying the quick check's plan (however often it looks again); the
// agent (here its two calls to the store) takes it and reports the service's verdict. Passed:
// the flag cleared by the service and the node resumed. Judged failed: the GPU an RMA candidate,
// the flag open, the node kept drained. Not run, never reported, or the flag decided by an
// operator meanwhile: the node is not given back behind anyone's back.
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

constexpr const char* kPassedVerdict = R"({"passed": true, "failures": []})";
constexpr const char* kFailedVerdict =
    R"({"passed": false, "failures": [{"gpu_serial": "GPU-BI-B", "check": "compute",
        "message": "GPU GPU-BI-B compute 400 TFLOP/s is below 90% of nominal 989"}]})";

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
    rollout.timings.quick_check_timeout = std::chrono::minutes(10);
    rollout.timings.quick_check_seconds = 5;
    const workflows::LifecycleDeps deps{t.db, nullptr, nullptr, clock};
    engine.registerWorkflow(workflows::gpuFlagBurnInWorkflow(deps, {}, rollout));
    engine.registerWorkflow(workflows::gpuFlagDrainWorkflow(deps, {}, rollout));
    engine.registerWorkflow(workflows::gpuFlagReleaseWorkflow(deps, {}, rollout));
  }

  h::Seconds now() const { return std::chrono::floor<std::chrono::seconds>(clock->now()); }

  // A node whose GPU reported once and got a rerun_burn_in flag (as trend.ecc_cusum raises).
  inventory::Node flaggedNode(const std::string& serial, const std::string& gpu) {
    inventory::NodeSpec spec;
    spec.chassis_serial = serial;
    auto node = inventory::createNode(*t.db, spec, "test");
    ENGINE_REQUIRE_OK(node);
    flag(*node, gpu, "trend.ecc_cusum");
    return *node;
  }

  // A reading of `gpu` in `node`, then a rerun_burn_in flag of `rule` on it.
  void flag(const inventory::Node& node, const std::string& gpu, const std::string& rule) {
    h::GpuSample s;
    s.serial = gpu;
    s.temperature_c = 60;
    ENGINE_REQUIRE_OK(inventory::ingestHealthBatch(*t.db, node.id,
                                                   {now() - std::chrono::seconds(1), {s}}, now()));
    h::FlagDraft draft;
    draft.serial = gpu;
    draft.rule = rule;
    draft.action = h::FlagAction::kRerunBurnIn;
    draft.reason = rule + ": test evidence";
    draft.evidence_json = "{}";
    draft.raised_at = now() - std::chrono::seconds(1);
    ENGINE_REQUIRE_OK(inventory::raiseFlags(*t.db, {draft}, now()));
  }

  void start() {
    ENGINE_REQUIRE_OK(workflows::ensureHealthUpkeepRun(engine));
    engine_test::drain(engine);
  }

  // A minute later, everything due runs.
  void later() {
    clock->advance(std::chrono::minutes(1));
    engine_test::drain(engine);
  }

  inventory::GpuFlag flagOf(const std::string& serial,
                            const std::string& rule = "trend.ecc_cusum") {
    inventory::FlagFilter filter;
    filter.serial = serial;
    filter.rule = rule;
    auto flags = inventory::listFlags(*t.db, filter);
    REQUIRE(flags);
    REQUIRE(flags->size() == 1);
    return flags->front();
  }

  inventory::WorkflowRun runOf(const inventory::GpuFlag& flag) {
    auto run = inventory::latestRunForSubject(*t.db, workflows::kGpuFlagBurnIn,
                                              workflows::flagDrainSubject(flag.id));
    ENGINE_REQUIRE_OK(run);
    REQUIRE(run->has_value());
    return **run;
  }

  // The agent's side: the next batch answer hands the task over, then its report, as the
  // service records it once it has judged the result.
  // The next upkeep pass (every 5 minutes) and what it starts.
  void nextPass() {
    clock->advance(std::chrono::minutes(6));
    later();
    later();
  }

  inventory::ResidentTask agentReports(const inventory::Node& node, bool ran,
                                       const std::string& message,
                                       std::optional<std::string> verdict) {
    auto delivered = inventory::deliverResidentTasks(*t.db, node.id, now());
    ENGINE_REQUIRE_OK(delivered);
    REQUIRE(delivered->size() == 1);
    auto finished = inventory::finishResidentTask(*t.db, node.id, delivered->front().id, ran,
                                                  message, now(), now(), verdict);
    ENGINE_REQUIRE_OK(finished);
    return *finished;
  }

  std::vector<inventory::ResidentTask> tasksOf(const inventory::Node& node) {
    auto tasks = inventory::listResidentTasks(*t.db, node.id);
    ENGINE_REQUIRE_OK(tasks);
    return *tasks;
  }

  std::vector<std::string> timelineKinds(const inventory::Node& node) {
    auto timeline = inventory::nodeTimeline(*t.db, node.id);
    ENGINE_REQUIRE_OK(timeline);
    std::vector<std::string> kinds;
    for (const auto& e : *timeline) kinds.push_back(e.kind);
    return kinds;
  }
};

}  // namespace

TEST_CASE("a rerun_burn_in flag: drained, the burn-in rerun by the node's agent, passed, node back",
          "[health][flags][actions][burn_in]") {
  Fleet f;
  const auto node = f.flaggedNode("NODE-BI-A", "GPU-BI-A");
  f.start();
  const auto flag = f.flagOf("GPU-BI-A");
  CHECK_FALSE(flag.action_at.empty());
  CHECK(f.scheduler.actionsFor("NODE-BI-A") == std::vector<std::string>{"drain"});

  // One task, however often the run looks: the quick check's plan (each test cut to 5 s), the
  // GPUs the verdict expects.
  f.later();
  f.later();
  auto tasks = f.tasksOf(node);
  REQUIRE(tasks.size() == 1);
  CHECK(tasks.front().kind == "burn_in");
  CHECK(tasks.front().gpu_serial == "GPU-BI-A");
  const auto spec = json::parse(tasks.front().spec_json);
  CHECK(spec["expected_gpus"] == node.gpu_count);  // no profile: what the inventory counted
  REQUIRE_FALSE(spec["plan"]["tests"].empty());
  for (const auto& test : spec["plan"]["tests"]) CHECK(test["duration_s"] == 5);
  CHECK(f.runOf(flag).state == "running");

  f.agentReports(node, true, "burn-in passed: 40 measurements", kPassedVerdict);
  f.later();
  const auto after = f.flagOf("GPU-BI-A");
  CHECK(after.state == "cleared");
  CHECK(after.cleared_by == "service");
  CHECK(after.clear_note.find("passed") != std::string::npos);
  CHECK_FALSE(after.released_at.empty());
  CHECK(f.runOf(flag).state == "succeeded");
  CHECK(f.scheduler.actionsFor("NODE-BI-A") == std::vector<std::string>{"drain", "resume"});
  const auto kinds = f.timelineKinds(node);
  CHECK(engine_test::countKind(kinds, "flag_drain") == 1);
  CHECK(engine_test::countKind(kinds, "burn_in_requested") == 1);
  CHECK(engine_test::countKind(kinds, "burn_in_passed") == 1);
  CHECK(engine_test::countKind(kinds, "flag_undrain") == 1);

  // Later passes start nothing again.
  f.clock->advance(std::chrono::minutes(6));
  f.later();
  CHECK(f.scheduler.actionsFor("NODE-BI-A").size() == 2);
  tasks = f.tasksOf(node);
  CHECK(tasks.size() == 1);
}

TEST_CASE("a failed burn-in makes the GPU an RMA candidate and keeps its node drained",
          "[health][flags][actions][burn_in]") {
  Fleet f;
  const auto judged = f.flaggedNode("NODE-BI-B", "GPU-BI-B");
  const auto unrun = f.flaggedNode("NODE-BI-C", "GPU-BI-C");
  const auto silent = f.flaggedNode("NODE-BI-D", "GPU-BI-D");
  f.start();
  f.agentReports(judged, false, "1 failure(s): GPU GPU-BI-B compute 400 TFLOP/s is below 90%",
                 kFailedVerdict);
  f.agentReports(unrun, false, "the burn-in could not run: no GPUs found", std::nullopt);
  f.later();

  // Judged failed: the run did its work; the GPU the verdict names gets a flag of its own, whose
  // drain run makes it an RMA candidate; the flag that asked stays open, holding the node.
  const auto b = f.flagOf("GPU-BI-B");
  CHECK(f.runOf(b).state == "succeeded");
  CHECK(b.state == "open");
  CHECK(b.released_at.empty());
  CHECK(engine_test::countKind(f.timelineKinds(judged), "burn_in_failed") == 1);
  f.nextPass();
  const auto failed = f.flagOf("GPU-BI-B", "burn_in.rerun_failed");
  CHECK(failed.action == "rma_candidate");
  CHECK(failed.severity == "critical");
  CHECK(failed.node_id == judged.id);
  CHECK(failed.reason.find("400 TFLOP/s") != std::string::npos);
  CHECK_FALSE(failed.action_at.empty());
  CHECK(engine_test::countKind(f.timelineKinds(judged), "rma_candidate") == 1);
  auto history = inventory::gpuHealthHistory(*f.t.db, "GPU-BI-B", f.now() - std::chrono::hours(1),
                                             f.now() + std::chrono::hours(1), h::Resolution::kRaw);
  ENGINE_REQUIRE_OK(history);
  std::vector<std::string> events;
  for (const auto& e : history->events) events.push_back(e.kind);
  CHECK(engine_test::countKind(events, "rma_candidate") == 1);
  CHECK(f.scheduler.actionsFor("NODE-BI-B") == std::vector<std::string>{"drain", "drain"});

  // Not run: no verdict, no RMA; the run fails with the agent's words, the node stays drained.
  const auto c = f.flagOf("GPU-BI-C");
  CHECK(f.runOf(c).state == "failed");
  CHECK(f.runOf(c).reason == "burn_in_not_run");
  CHECK(engine_test::countKind(f.timelineKinds(unrun), "rma_candidate") == 0);
  CHECK(f.scheduler.actionsFor("NODE-BI-C") == std::vector<std::string>{"drain"});
  inventory::FlagFilter c_flags;
  c_flags.serial = "GPU-BI-C";
  auto c_all = inventory::listFlags(*f.t.db, c_flags);
  ENGINE_REQUIRE_OK(c_all);
  CHECK(c_all->size() == 1);  // nothing raised without a verdict

  // Never reported: after the quick check's timeout the task is cancelled, the run failed.
  for (int i = 0; i < 12; ++i) f.later();
  const auto d = f.flagOf("GPU-BI-D");
  CHECK(f.runOf(d).state == "failed");
  CHECK(f.runOf(d).reason == "agent_silent");
  auto tasks = f.tasksOf(silent);
  REQUIRE(tasks.size() == 1);
  CHECK(tasks.front().state == "cancelled");
  CHECK(f.scheduler.actionsFor("NODE-BI-D") == std::vector<std::string>{"drain"});
  CHECK(f.flagOf("GPU-BI-D").state == "open");

  // Clearing the flag that asked gives nothing back while the failed GPU's flag holds the node;
  // once the operator clears that one too (the GPU swapped), the node goes back.
  ENGINE_REQUIRE_OK(inventory::clearFlag(*f.t.db, b.id, "alice", "GPU swapped", f.now()));
  f.nextPass();
  CHECK(f.scheduler.actionsFor("NODE-BI-B") == std::vector<std::string>{"drain", "drain"});
  ENGINE_REQUIRE_OK(inventory::clearFlag(*f.t.db, failed.id, "alice", "GPU swapped", f.now()));
  f.nextPass();
  CHECK(f.scheduler.actionsFor("NODE-BI-B") ==
        std::vector<std::string>{"drain", "drain", "resume"});
}

TEST_CASE("two flags of one node share its burn-in; a node burned in lately waits for an operator",
          "[health][flags][actions][burn_in]") {
  Fleet f;
  const auto node = f.flaggedNode("NODE-BI-F", "GPU-BI-F0");
  f.start();
  // A second GPU of the node is flagged while the burn-in is under way: it joins it.
  f.flag(node, "GPU-BI-F1", "peer.sm_clock");
  f.nextPass();
  auto tasks = f.tasksOf(node);
  REQUIRE(tasks.size() == 1);
  CHECK(engine_test::countKind(f.timelineKinds(node), "burn_in_joined") == 1);

  // One verdict answers both: both cleared, the node given back (each flag's release tells the
  // scheduler, whose resume is idempotent; nothing drains it after).
  f.agentReports(node, true, "burn-in passed: 40 measurements", kPassedVerdict);
  f.later();
  CHECK(f.flagOf("GPU-BI-F0").state == "cleared");
  CHECK(f.flagOf("GPU-BI-F1", "peer.sm_clock").state == "cleared");
  f.nextPass();
  auto actions = f.scheduler.actionsFor("NODE-BI-F");
  REQUIRE(actions.size() >= 3);
  CHECK(actions[0] == "drain");
  CHECK(actions[1] == "drain");
  CHECK(actions.back() == "resume");
  CHECK(engine_test::countKind(actions, "drain") == 2);

  // Flagged again the next day: the node passed a burn-in a day ago, so no second one; the flag
  // stays open without an action, for an operator.
  f.clock->advance(std::chrono::hours(24));
  f.flag(node, "GPU-BI-F0", "learned.temperature");
  f.nextPass();
  const auto again = f.flagOf("GPU-BI-F0", "learned.temperature");
  CHECK(again.state == "open");
  CHECK(again.action_at.empty());
  tasks = f.tasksOf(node);
  CHECK(tasks.size() == 1);
  CHECK(f.scheduler.actionsFor("NODE-BI-F") == actions);

  // After the cooldown (7 days) a new flag burns it in again.
  f.clock->advance(std::chrono::hours(24 * 7));
  f.flag(node, "GPU-BI-F1", "trend.sm_clock_drift");
  f.nextPass();
  tasks = f.tasksOf(node);
  CHECK(tasks.size() == 2);
}

TEST_CASE("an operator who acknowledges a rerun_burn_in flag while the run waits stops it",
          "[health][flags][actions][burn_in]") {
  Fleet f;
  const auto node = f.flaggedNode("NODE-BI-E", "GPU-BI-E");
  f.start();
  const auto flag = f.flagOf("GPU-BI-E");
  ENGINE_REQUIRE_OK(inventory::acknowledgeFlag(*f.t.db, flag.id, "alice", "looking", f.now()));
  f.later();
  CHECK(f.runOf(flag).state == "succeeded");
  auto tasks = f.tasksOf(node);
  REQUIRE(tasks.size() == 1);
  CHECK(tasks.front().state == "cancelled");
  // Acknowledged is not cleared: the node stays drained until she clears it.
  CHECK(f.scheduler.actionsFor("NODE-BI-E") == std::vector<std::string>{"drain"});
}

// Admission slots, the node timeline and the step metrics.
#include <atomic>

#include "engine_test_support.hpp"
#include "inventory/nodes.hpp"

using namespace std::chrono_literals;
using engine_test::runOf;
using workflows::StepContext;
using workflows::StepOutcome;

namespace {

struct Fixture {
  engine_test::TestDb t = engine_test::freshDb();
  std::shared_ptr<workflows::FakeClock> clock = std::make_shared<workflows::FakeClock>();
  workflows::Engine engine{t.db, clock, workflows::EngineOptions{"test-replica"}};

  inventory::Id start(const std::string& kind, const std::string& subject,
                      std::optional<inventory::Id> node_id = std::nullopt) {
    workflows::StartRequest req;
    req.kind = kind;
    req.subject = subject;
    req.rack = "r1";
    req.node_id = node_id;
    req.actor = "dhcp";
    auto started = engine.start(req);
    ENGINE_REQUIRE_OK(started);
    return started->run_id;
  }
  std::size_t once() {
    auto n = engine.runOnce();
    ENGINE_REQUIRE_OK(n);
    return *n;
  }
};

}  // namespace

TEST_CASE("Engine slots cap a rack and the finish of a holder wakes the next run",
          "[engine][slots]") {
  Fixture f;
  workflows::WorkflowDef def;
  def.kind = "slotted";
  def.first_step = "admit";
  def.steps.push_back({"admit", [&](StepContext& ctx) {
                         auto got = inventory::acquireWorkflowSlot(*f.t.db, ctx.run().id, "rack",
                                                                   ctx.run().rack, 2, ctx.now());
                         if (!got) return StepOutcome::retry("db", got.error().message);
                         if (!*got) {
                           return StepOutcome::waitUntil(ctx.now() + 24h,
                                                         "slot:rack:" + ctx.run().rack);
                         }
                         return StepOutcome::next("work");
                       }});
  def.steps.push_back({"work", [](StepContext& ctx) {
                         if (!ctx.data().contains("worked")) {
                           ctx.data()["worked"] = true;
                           return StepOutcome::waitUntil(ctx.now() + 24h, "burn_in");
                         }
                         return StepOutcome::succeed();
                       }});
  f.engine.registerWorkflow(def);
  std::vector<inventory::Id> ids;
  for (const char* subject : {"n1", "n2", "n3"}) ids.push_back(f.start("slotted", subject));

  engine_test::drain(f.engine);
  std::vector<inventory::Id> holders;
  inventory::Id waiter = 0;
  for (auto id : ids) {
    auto run = runOf(*f.t.db, id);
    if (run.step == "work") {
      holders.push_back(id);
    } else {
      CHECK(run.waiting_for == "slot:rack:r1");
      waiter = id;
    }
  }
  REQUIRE(holders.size() == 2);
  REQUIRE(waiter != 0);
  // Holding a slot again is not taking another one.
  auto held = inventory::acquireWorkflowSlot(*f.t.db, holders[0], "rack", "r1", 2, f.clock->now());
  ENGINE_REQUIRE_OK(held);
  CHECK(*held);

  CHECK(f.once() == 0);
  ENGINE_REQUIRE_OK(f.engine.signal(holders[0]));
  CHECK(f.once() == 1);  // the holder finishes and frees its slot
  CHECK(runOf(*f.t.db, holders[0]).state == "succeeded");
  CHECK(f.once() == 1);  // the waiter was woken and takes the slot
  CHECK(f.once() == 1);  // and goes on to work
  auto run = runOf(*f.t.db, waiter);
  CHECK(run.step == "work");
  CHECK(run.waiting_for == "burn_in");
}

TEST_CASE("Engine writes a node timeline without re-poll noise and renders step metrics",
          "[engine][timeline][metrics]") {
  Fixture f;
  inventory::NodeSpec spec;
  spec.chassis_serial = "SN-TIMELINE-1";
  auto node = inventory::createNode(*f.t.db, spec, "test");
  ENGINE_REQUIRE_OK(node);
  std::atomic<int> polls{0};
  workflows::WorkflowDef def;
  def.kind = "lifecycle_demo";
  def.first_step = "inspect";
  def.failure_step = "quarantine";
  def.steps.push_back({"inspect", [](StepContext& ctx) {
                         ctx.event("inventory_read", "8 GPUs found", {{"gpus", 8}});
                         return StepOutcome::next("burn_in", "inspected");
                       }});
  def.steps.push_back(
      {"burn_in", [&](StepContext& ctx) {
         if (++polls < 3) {
           return StepOutcome::waitUntil(ctx.now() + 30s, "agent_result");
         }
         return StepOutcome::fail("slow_gpu", "GPU 3 HBM at 80%", {{"serial", "GPU-3"}});
       }});
  def.steps.push_back({"quarantine", [](StepContext&) { return StepOutcome::succeed(); }});
  f.engine.registerWorkflow(def);
  const auto id = f.start("lifecycle_demo", "bmc:aa", node->id);

  REQUIRE(f.once() == 1);  // inspect
  f.clock->advance(2s);
  REQUIRE(f.once() == 1);  // burn_in waits
  f.clock->advance(30s);
  REQUIRE(f.once() == 1);  // re-poll: same wait
  f.clock->advance(30s);
  REQUIRE(f.once() == 1);  // fails -> quarantine
  REQUIRE(f.once() == 1);  // quarantine succeeds

  auto timeline = inventory::nodeTimeline(*f.t.db, node->id);
  ENGINE_REQUIRE_OK(timeline);
  std::vector<std::string> kinds;
  for (const auto& e : *timeline) {
    kinds.push_back(e.kind + ":" + e.step);
    CHECK(e.run_id == id);
    CHECK(!e.at.empty());
  }
  const std::vector<std::string> expected = {
      "started:inspect", "inventory_read:inspect",    "step_completed:inspect", "waiting:burn_in",
      "failed:burn_in",  "step_completed:quarantine", "succeeded:quarantine"};
  CHECK(kinds == expected);
  const auto& completed = (*timeline)[2];
  REQUIRE(completed.duration_ms.has_value());
  CHECK(*completed.duration_ms >= 0);
  CHECK(completed.message == "inspected");
  CHECK(nlohmann::json::parse(completed.detail_json)["next"] == "burn_in");
  CHECK((*timeline)[4].detail_json.find("GPU-3") != std::string::npos);

  std::string metrics;
  f.engine.renderMetrics(metrics);
  INFO(metrics);
  // burn_in was entered at 0 s and left at 62 s: one observation in the 120 s bucket.
  CHECK(metrics.find("provisioner_workflow_step_duration_seconds_bucket{workflow=\"lifecycle_"
                     "demo\",step=\"burn_in\",le=\"60\"} 0") != std::string::npos);
  CHECK(metrics.find("provisioner_workflow_step_duration_seconds_bucket{workflow=\"lifecycle_"
                     "demo\",step=\"burn_in\",le=\"120\"} 1") != std::string::npos);
  CHECK(metrics.find("provisioner_workflow_step_duration_seconds_count{workflow=\"lifecycle_"
                     "demo\",step=\"burn_in\"} 1") != std::string::npos);
  CHECK(metrics.find("provisioner_workflow_step_outcomes_total{workflow=\"lifecycle_demo\","
                     "step=\"burn_in\",outcome=\"wait\"} 2") != std::string::npos);
  CHECK(metrics.find("provisioner_workflow_failures_total{workflow=\"lifecycle_demo\","
                     "step=\"burn_in\",reason=\"slow_gpu\"} 1") != std::string::npos);
  CHECK(metrics.find("provisioner_workflow_steps_executed_total 5") != std::string::npos);
  CHECK(metrics.find("provisioner_workflow_runs_claimed_total 5") != std::string::npos);

  auto counts = inventory::workflowRunCounts(*f.t.db, "lifecycle_demo");
  ENGINE_REQUIRE_OK(counts);
  REQUIRE(counts->size() == 1);
  CHECK(counts->front().first == "succeeded");
  CHECK(counts->front().second == 1);
}

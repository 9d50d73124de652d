// The burn-in step: the agent's verdict as the agent routes record it (through the inventory),
// and an agent that never answers: one more boot, then a quarantine.
#include <catch2/catch.hpp>

#include "inventory/agent_tasks.hpp"
#include "lifecycle_b_bench.hpp"

namespace {

using lifecycle_b::Bench;
using lifecycle_b::BenchOptions;
using nlohmann::json;
using workflows::StepOutcome;
namespace lc = workflows::lifecycle;
using Kind = StepOutcome::Kind;
using std::chrono::hours;
using std::chrono::minutes;

#define CHECK_KIND(outcome, expected_kind)                                    \
  do {                                                                        \
    INFO((outcome).reason + " " + (outcome).step + ": " + (outcome).message); \
    REQUIRE((outcome).kind == (expected_kind));                               \
  } while (false)

inventory::Id bootIntoBurnIn(Bench& bench) {
  auto imaged = bench.run("imaging", lc::imagingStep);
  CHECK_KIND(imaged, Kind::kNext);
  return bench.data()["imaging"]["task_id"].get<inventory::Id>();
}

void finish(Bench& bench, inventory::Id task_id, const std::string& state,
            const std::vector<inventory::BurnInResultRecord>& results) {
  REQUIRE(inventory::markTaskStarted(bench.db(), task_id).ok());
  auto done = inventory::finishAgentTask(bench.db(), task_id, state, results, "{}", state);
  INFO((done ? std::string() : done.error().message));
  REQUIRE(done.ok());
}

inventory::BurnInResultRecord hbm(const std::string& serial, double value, bool passed) {
  inventory::BurnInResultRecord r;
  r.gpu_serial = serial;
  r.gpu_model = "NVIDIA H100 80GB HBM3";
  r.test = "hbm_bandwidth";
  r.value = value;
  r.unit = "GB/s";
  r.nominal = 3350;
  r.threshold = 0.85;
  r.batch_median = 3300;
  r.passed = passed;
  r.reason = passed ? "" : "below_threshold";
  return r;
}

// No result: one re-arm (a second task, a second boot), then agent_timeout.
void expectTimeoutAfterRearm(Bench& bench) {
  const auto first = bootIntoBurnIn(bench);
  auto waiting = bench.run("burn_in", lc::burnInStep);
  CHECK_KIND(waiting, Kind::kWait);
  CHECK(waiting.waiting_for == "agent_result");
  CHECK(bench.nodeState() == "burn_in");

  bench.advance(hours(2) + minutes(1));
  auto rearmed = bench.run("burn_in", lc::burnInStep);
  CHECK_KIND(rearmed, Kind::kNext);
  CHECK(rearmed.step == "imaging");
  CHECK(std::count(bench.events().begin(), bench.events().end(), "agent_timeout") == 1);
  CHECK(inventory::getAgentTask(bench.db(), first)->state == "cancelled");

  const auto second = bootIntoBurnIn(bench);
  CHECK(second != first);
  CHECK(bench.data()["imaging"]["boots"] == 2);
  CHECK_KIND(bench.run("burn_in", lc::burnInStep), Kind::kWait);
  bench.advance(hours(2) + minutes(1));
  auto failed = bench.run("burn_in", lc::burnInStep);
  CHECK_KIND(failed, Kind::kFail);
  CHECK(failed.reason == "agent_timeout");
  CHECK(failed.message.find("after 2 boots") != std::string::npos);
  auto tasks = inventory::listTasksForNode(bench.db(), bench.nodeId());
  REQUIRE(tasks.ok());
  CHECK(tasks->size() == 2);
  for (const auto& t : *tasks) CHECK(t.state == "cancelled");
  CHECK(bench.requestCount("POST", "ComputerSystem.Reset") == 2);
}

}  // namespace

TEST_CASE("Burn-in passed hands the node off", "[lifecycle_b][burn_in]") {
  Bench bench;
  const auto task = bootIntoBurnIn(bench);
  CHECK_KIND(bench.run("burn_in", lc::burnInStep), Kind::kWait);
  finish(bench, task, "passed", {hbm("GPU-OK-1", 3310, true)});
  auto outcome = bench.run("burn_in", lc::burnInStep);
  CHECK_KIND(outcome, Kind::kNext);
  CHECK(outcome.step == "handoff");
}

TEST_CASE("Burn-in failure names the slow GPU and its measurement", "[lifecycle_b][burn_in]") {
  Bench bench;
  const auto task = bootIntoBurnIn(bench);
  finish(bench, task, "failed",
         {hbm("1654922006549-GPU1", 3310, true), hbm("1654922006549-GPU3", 2680, false)});
  auto outcome = bench.run("burn_in", lc::burnInStep);
  CHECK_KIND(outcome, Kind::kFail);
  CHECK(outcome.reason == "burn_in_failed");
  CHECK(outcome.message == "GPU 1654922006549-GPU3 hbm_bandwidth 2680 GB/s < 85% of nominal 3350");
  CHECK(outcome.detail["task_id"] == task);
  REQUIRE(outcome.detail["failures"].size() == 1);
  const auto& failure = outcome.detail["failures"][0];
  CHECK(failure["gpu_serial"] == "1654922006549-GPU3");
  CHECK(failure["value"] == 2680.0);
  CHECK(failure["nominal"] == 3350.0);
  CHECK(failure["batch_median"] == 3300.0);
  CHECK(failure["reason"] == "below_threshold");
}

TEST_CASE("An agent error ends the burn-in as burn_in_error", "[lifecycle_b][burn_in]") {
  Bench bench;
  const auto task = bootIntoBurnIn(bench);
  finish(bench, task, "error", {});
  auto outcome = bench.run("burn_in", lc::burnInStep);
  CHECK_KIND(outcome, Kind::kFail);
  CHECK(outcome.reason == "burn_in_error");
}

TEST_CASE("No agent result re-arms the boot once then quarantines", "[lifecycle_b][burn_in]") {
  Bench bench;
  expectTimeoutAfterRearm(bench);
}

TEST_CASE("A node ignoring the boot override ends in agent_timeout after the re-arm",
          "[lifecycle_b][burn_in]") {
  BenchOptions options;
  options.faults = {{"ignore_boot_override", true}};
  Bench bench(options);
  expectTimeoutAfterRearm(bench);
}

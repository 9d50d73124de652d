// provisioner-agent --local-task: one burn-in or wipe task run without the service, on the
// simulated backend.
#include <catch2/catch.hpp>

#include <sstream>

#include <nlohmann/json.hpp>

#include "agent/cmdline.hpp"
#include "agent/local_task.hpp"
#include "agent/sim_backend.hpp"

using nlohmann::json;

namespace {

std::unique_ptr<agent::SimulatedGpuBackend> makeSim(int gpus) {
  auto parsed = agent::parseSimConfig(json{{"model", "NVIDIA H100 80GB HBM3"}, {"gpus", gpus}});
  REQUIRE(parsed.ok());
  auto sim = agent::SimulatedGpuBackend::create(std::move(parsed).value());
  REQUIRE(sim.ok());
  return std::move(sim).value();
}

}  // namespace

TEST_CASE("agent --local-task takes a file and needs no service", "[agent][local]") {
  auto args = agent::parseAgentArgs({"--local-task", "task.json", "--backend", "simulated"});
  REQUIRE(args.ok());
  CHECK(args->local_task_file == "task.json");
  CHECK(args->service_url.empty());
  CHECK(agent::agentUsage().find("--local-task FILE") != std::string::npos);
}

TEST_CASE("agent local burn-in measures every GPU", "[agent][local]") {
  auto sim = makeSim(2);
  std::ostringstream log;
  auto result = agent::runLocalTask(
      R"({"id": 7, "kind": "burn_in", "plan": {"tests": [{"name": "hbm_bandwidth",
          "duration_s": 1}]}})",
      *sim, log);
  REQUIRE(result.ok());
  CHECK(result->task_id == 7);
  CHECK(result->error.empty());
  REQUIRE(result->measurements.size() == 2);
  CHECK(result->measurements[0].test == "hbm_bandwidth");
  CHECK(result->measurements[0].value > 0);
  CHECK(log.str().find("local burn-in") != std::string::npos);
}

TEST_CASE("agent local wipe reports every GPU's passes", "[agent][local]") {
  auto sim = makeSim(3);
  std::ostringstream log;
  auto result = agent::runLocalTask(R"({"id": 9, "kind": "wipe", "wipe": {"seed": 5}})", *sim, log);
  REQUIRE(result.ok());
  REQUIRE(result->wipe.has_value());
  CHECK(result->wipe->backend == "simulated");
  REQUIRE(result->wipe->gpus.size() == 3);
  CHECK(result->wipe->gpus[2].passes.size() == 3);
  CHECK(result->wipe->gpus[2].mismatches == 0);
  // What gets printed is the wire form the service would receive.
  auto parsed = agent::parseTaskResult(agent::toJson(*result));
  REQUIRE(parsed.ok());
  CHECK(parsed->wipe->gpus[0].covered_bytes == result->wipe->gpus[0].covered_bytes);
}

TEST_CASE("agent local task refuses what is not a burn-in or wipe task", "[agent][local]") {
  auto sim = makeSim(1);
  std::ostringstream log;
  auto not_json = agent::runLocalTask("{", *sim, log);
  REQUIRE_FALSE(not_json.ok());
  CHECK(not_json.error().code == "invalid_task");
  auto none = agent::runLocalTask(R"({"id": 0, "kind": "none"})", *sim, log);
  REQUIRE_FALSE(none.ok());
  CHECK(none.error().field == "kind");
  auto no_seed = agent::runLocalTask(R"({"id": 1, "kind": "wipe", "wipe": {}})", *sim, log);
  REQUIRE_FALSE(no_seed.ok());
}

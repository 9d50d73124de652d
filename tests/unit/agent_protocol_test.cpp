#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "agent/protocol.hpp"

using nlohmann::json;

namespace {

agent::Facts sampleFacts() {
  agent::Facts facts;
  facts.host_serial = "SN-1";
  facts.agent_version = "0.1.0";
  facts.backend = "simulated";
  agent::GpuFacts gpu;
  gpu.index = 3;
  gpu.uuid = "GPU-abc";
  gpu.serial = "1654922012345";
  gpu.model = "NVIDIA H100 80GB HBM3";
  gpu.memory_mib = 81559;
  gpu.pcie = {8, 16, 5, 5};
  gpu.driver_version = "580.95.05";
  gpu.ecc_enabled = true;
  facts.gpus.push_back(gpu);
  facts.nics.push_back({"enp1s0f0", "02:00:00:aa:bb:cc"});
  return facts;
}

json validResult() {
  return json::parse(R"({"task_id": 9, "error": "",
    "measurements": [{"gpu_serial": "S0", "gpu_uuid": "GPU-0", "gpu_model": "NVIDIA H200",
                      "test": "peer_bandwidth", "value": 371.5, "unit": "GB/s",
                      "peer_serial": "S1"}],
    "health": [{"gpu_serial": "S0", "ecc_corrected": 2, "ecc_uncorrected": 0,
                "xid_events": [79], "max_temperature_c": 70,
                "throttle_reasons": ["hw_thermal"]}]})");
}

}  // namespace

TEST_CASE("agent facts survive a JSON round trip", "[agent]") {
  auto parsed = agent::parseFacts(agent::toJson(sampleFacts()));
  REQUIRE(parsed.ok());
  REQUIRE(parsed->gpus.size() == 1);
  CHECK(parsed->host_serial == "SN-1");
  CHECK(parsed->gpus[0].index == 3);
  CHECK(parsed->gpus[0].serial == "1654922012345");
  CHECK(parsed->gpus[0].memory_mib == 81559);
  CHECK(parsed->gpus[0].pcie.current_width == 8);
  CHECK(parsed->gpus[0].pcie.max_width == 16);
  CHECK(parsed->gpus[0].ecc_enabled);
  REQUIRE(parsed->nics.size() == 1);
  CHECK(parsed->nics[0].mac == "02:00:00:aa:bb:cc");
}

TEST_CASE("agent facts normalise MACs and name the offending field", "[agent]") {
  json facts = agent::toJson(sampleFacts());
  facts["nics"][0]["mac"] = "02-00-00-AA-BB-CC";
  auto parsed = agent::parseFacts(facts);
  REQUIRE(parsed.ok());
  CHECK(parsed->nics[0].mac == "02:00:00:aa:bb:cc");

  facts["nics"][0]["mac"] = "not-a-mac";
  auto bad_mac = agent::parseFacts(facts);
  REQUIRE_FALSE(bad_mac.ok());
  CHECK(bad_mac.error().code == "invalid_facts");
  CHECK(bad_mac.error().field == "nics[0].mac");

  facts = agent::toJson(sampleFacts());
  facts["gpus"][0]["serial"] = 12;
  CHECK(agent::parseFacts(facts).error().field == "gpus[0].serial");
  facts = agent::toJson(sampleFacts());
  facts["gpus"][0]["pcie"]["current_width"] = 1000;
  CHECK(agent::parseFacts(facts).error().field == "gpus[0].pcie.current_width");
  facts = agent::toJson(sampleFacts());
  facts["gpus"].push_back(facts["gpus"][0]);
  CHECK(agent::parseFacts(facts).error().field == "gpus[1].index");
  facts = agent::toJson(sampleFacts());
  facts["host_serial"] = std::string(257, 'x');
  CHECK(agent::parseFacts(facts).error().field == "host_serial");
  facts = agent::toJson(sampleFacts());
  facts["gpus"][0].erase("uuid");
  CHECK(agent::parseFacts(facts).error().field == "gpus[0].uuid");
}

TEST_CASE("agent facts refuse more than 64 GPUs and non-objects", "[agent]") {
  json facts = agent::toJson(sampleFacts());
  json gpu = facts["gpus"][0];
  facts["gpus"] = json::array();
  for (int i = 0; i < 65; ++i) facts["gpus"].push_back(gpu);
  auto parsed = agent::parseFacts(facts);
  REQUIRE_FALSE(parsed.ok());
  CHECK(parsed.error().field == "gpus");
  CHECK_FALSE(agent::parseFacts(json::array()).ok());
  CHECK_FALSE(agent::parseFacts(json("text")).ok());
  CHECK(
      agent::parseFacts(json::parse(R"({"host_serial":"x","agent_version":"1"})")).error().field ==
      "backend");
}

TEST_CASE("agent default plan has the five tests and round trips", "[agent]") {
  agent::BurnInPlan plan = agent::defaultBurnInPlan();
  REQUIRE(plan.tests.size() == 5);
  for (const auto& test : plan.tests) CHECK(agent::isKnownTest(test.name));
  plan.tests[1].threshold = 0.9;
  plan.max_corrected_ecc = 7;
  auto parsed = agent::parseBurnInPlan(agent::toJson(plan));
  REQUIRE(parsed.ok());
  REQUIRE(parsed->tests.size() == 5);
  CHECK(parsed->tests[0].name == "compute");
  CHECK_FALSE(parsed->tests[0].threshold.has_value());
  CHECK(parsed->tests[1].threshold == Approx(0.9));
  CHECK(parsed->default_threshold == Approx(0.85));
  CHECK(parsed->max_corrected_ecc == 7);
  CHECK(parsed->outlier_z == Approx(-3.5));
}

TEST_CASE("agent plans accept bare test names and fill defaults", "[agent]") {
  auto parsed = agent::parseBurnInPlan(json::parse(R"({"tests": ["compute", "pcie_d2h"]})"));
  REQUIRE(parsed.ok());
  REQUIRE(parsed->tests.size() == 2);
  CHECK(parsed->tests[1].name == "pcie_d2h");
  CHECK(parsed->tests[1].duration_s == Approx(10));
  CHECK(parsed->min_batch_size == 8);
}

TEST_CASE("agent plans name the bad field", "[agent]") {
  auto fieldOf = [](const char* text) {
    auto parsed = agent::parseBurnInPlan(json::parse(text));
    REQUIRE_FALSE(parsed.ok());
    CHECK(parsed.error().code == "invalid_plan");
    return parsed.error().field;
  };
  CHECK(fieldOf(R"({"tests": []})") == "tests");
  CHECK(fieldOf(R"({})") == "tests");
  CHECK(fieldOf(R"({"tests": [{"name": "burn_everything"}]})") == "tests[0].name");
  CHECK(fieldOf(R"({"tests": ["compute", "nope"]})") == "tests[1]");
  CHECK(fieldOf(R"({"tests": [{"name": "compute", "threshold": 1.5}]})") == "tests[0].threshold");
  CHECK(fieldOf(R"({"tests": [{"name": "compute", "threshold": 0}]})") == "tests[0].threshold");
  CHECK(fieldOf(R"({"tests": [{"name": "compute", "duration_s": 0}]})") == "tests[0].duration_s");
  CHECK(fieldOf(R"({"tests": [{"name": "compute", "duration_s": 90000}]})") ==
        "tests[0].duration_s");
  CHECK(fieldOf(R"({"tests": ["compute", "compute"]})") == "tests[1]");
  CHECK(fieldOf(R"({"tests": ["compute"], "default_threshold": "high"})") == "default_threshold");
  CHECK(fieldOf(R"({"tests": ["compute"], "outlier_z": 2})") == "outlier_z");
}

TEST_CASE("agent tasks round trip and check their plan", "[agent]") {
  agent::Task task;
  task.id = 17;
  task.kind = agent::TaskKind::kBurnIn;
  task.plan = agent::defaultBurnInPlan();
  auto parsed = agent::parseTask(agent::toJson(task));
  REQUIRE(parsed.ok());
  CHECK(parsed->id == 17);
  CHECK(parsed->kind == agent::TaskKind::kBurnIn);
  CHECK(parsed->plan.tests.size() == 5);

  auto none = agent::parseTask(json::parse(R"({"id": 0, "kind": "none"})"));
  REQUIRE(none.ok());
  CHECK(none->kind == agent::TaskKind::kNone);

  auto missing_plan = agent::parseTask(json::parse(R"({"id": 3, "kind": "burn_in"})"));
  REQUIRE_FALSE(missing_plan.ok());
  CHECK(missing_plan.error().field == "plan");
  auto bad_plan =
      agent::parseTask(json::parse(R"({"id": 3, "kind": "burn_in", "plan": {"tests": [5]}})"));
  REQUIRE_FALSE(bad_plan.ok());
  CHECK(bad_plan.error().code == "invalid_task");
  CHECK(bad_plan.error().field == "plan.tests[0]");
  CHECK(agent::parseTask(json::parse(R"({"id": 3, "kind": "reboot"})")).error().field == "kind");
  CHECK(agent::parseTask(json::parse(R"({"id": -3, "kind": "wipe"})")).error().field == "id");
  CHECK(agent::toString(agent::TaskKind::kWipe) == "wipe");
}

TEST_CASE("agent progress round trips and is range checked", "[agent]") {
  agent::Progress progress{"hbm_bandwidth", 2, 37.5, "running"};
  auto parsed = agent::parseProgress(agent::toJson(progress));
  REQUIRE(parsed.ok());
  CHECK(parsed->test == "hbm_bandwidth");
  CHECK(parsed->gpu_index == 2);
  CHECK(parsed->percent == Approx(37.5));
  CHECK(parsed->message == "running");
  CHECK(agent::parseProgress(json::parse(R"({"percent": 101})")).error().field == "percent");
  CHECK(agent::parseProgress(json::parse(R"({"percent": 5, "test": "x"})")).error().field ==
        "test");
  CHECK(agent::parseProgress(json::parse(R"({"percent": 5, "gpu_index": 64})")).error().field ==
        "gpu_index");
  CHECK(agent::parseProgress(json::parse(R"({})")).error().code == "invalid_progress");
}

TEST_CASE("agent results round trip with health and peers", "[agent]") {
  auto parsed = agent::parseTaskResult(validResult());
  REQUIRE(parsed.ok());
  REQUIRE(parsed->measurements.size() == 1);
  CHECK(parsed->measurements[0].peer_serial == "S1");
  CHECK(parsed->measurements[0].value == Approx(371.5));
  REQUIRE(parsed->health.size() == 1);
  CHECK(parsed->health[0].xid_events == std::vector<int>{79});
  CHECK(parsed->health[0].throttle_reasons == std::vector<std::string>{"hw_thermal"});

  auto again = agent::parseTaskResult(agent::toJson(*parsed));
  REQUIRE(again.ok());
  CHECK(agent::toJson(*again) == agent::toJson(*parsed));
}

TEST_CASE("agent results name the bad field and cap sizes", "[agent]") {
  auto fieldOf = [](json result) {
    auto parsed = agent::parseTaskResult(result);
    REQUIRE_FALSE(parsed.ok());
    CHECK(parsed.error().code == "invalid_result");
    return parsed.error().field;
  };
  json r = validResult();
  r["measurements"][0]["value"] = -1;
  CHECK(fieldOf(r) == "measurements[0].value");
  r = validResult();
  r["measurements"][0]["test"] = "fast";
  CHECK(fieldOf(r) == "measurements[0].test");
  r = validResult();
  r["health"][0]["xid_events"][0] = "79";
  CHECK(fieldOf(r) == "health[0].xid_events[0]");
  r = validResult();
  r["health"][0]["ecc_corrected"] = -5;
  CHECK(fieldOf(r) == "health[0].ecc_corrected");
  r = validResult();
  r["task_id"] = "9";
  CHECK(fieldOf(r) == "task_id");
  r = validResult();
  r["measurements"] = json::array();
  for (int i = 0; i < 10001; ++i) r["measurements"].push_back(validResult()["measurements"][0]);
  CHECK(fieldOf(r) == "measurements");
}

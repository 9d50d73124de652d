#include <catch2/catch.hpp>

#include <map>

#include <nlohmann/json.hpp>

#include "agent/runner.hpp"
#include "agent/sim_backend.hpp"

using nlohmann::json;

namespace {

struct Fixture {
  explicit Fixture(json faults = json::array(), int gpus = 8) {
    json config = {{"gpus", gpus}, {"seed", 3}, {"faults", std::move(faults)}};
    auto parsed = agent::parseSimConfig(config);
    REQUIRE(parsed.ok());
    auto created = agent::SimulatedGpuBackend::create(std::move(parsed).value());
    REQUIRE(created.ok());
    sim = std::move(created).value();
    gpus_found = *sim->discover();
  }

  agent::TaskResult run(const agent::BurnInPlan& plan = agent::defaultBurnInPlan()) {
    return agent::runBurnIn(5, plan, *sim, gpus_found, [this](const agent::Progress& p) {
      progress.push_back(p);
      return true;
    });
  }

  const agent::GpuHealth& healthOf(const agent::TaskResult& result, const std::string& serial) {
    for (const auto& h : result.health) {
      if (h.gpu_serial == serial) return h;
    }
    FAIL("no health for " << serial);
    return result.health.front();
  }

  std::unique_ptr<agent::SimulatedGpuBackend> sim;
  std::vector<agent::GpuFacts> gpus_found;
  std::vector<agent::Progress> progress;
};

}  // namespace

TEST_CASE("agent runner measures every test on every GPU", "[agent]") {
  Fixture f;
  auto result = f.run();
  CHECK(result.task_id == 5);
  CHECK(result.error.empty());
  REQUIRE(result.measurements.size() == 5 * 8);
  std::map<std::string, int> per_test;
  for (const auto& m : result.measurements) {
    ++per_test[m.test];
    CHECK(m.gpu_model == "NVIDIA H100 80GB HBM3");
    CHECK(m.gpu_uuid.starts_with("GPU-"));
    CHECK(m.unit == (m.test == "compute" ? "TFLOP/s" : "GB/s"));
    CHECK(m.value > 0);
  }
  for (const auto& [test, count] : per_test) CHECK(count == 8);
  REQUIRE(result.health.size() == 8);
  for (const auto& h : result.health) {
    CHECK(h.ecc_corrected == 0);  // the old counts are not new errors
    CHECK(h.max_temperature_c > 35);
  }
}

TEST_CASE("agent runner measures peer bandwidth around a ring", "[agent]") {
  Fixture f;
  agent::BurnInPlan plan;
  plan.tests.push_back({"peer_bandwidth", 1, std::nullopt});
  auto result = f.run(plan);
  REQUIRE(result.measurements.size() == 8);
  CHECK(result.measurements[0].gpu_serial == "SIM-0001-GPU0");
  CHECK(result.measurements[0].peer_serial == "SIM-0001-GPU1");
  CHECK(result.measurements[7].peer_serial == "SIM-0001-GPU0");

  Fixture single(json::array(), 1);
  auto alone = single.run(plan);
  CHECK(alone.measurements.empty());
  CHECK(alone.error.empty());
}

TEST_CASE("agent runner reports progress once per test and GPU in order", "[agent]") {
  Fixture f;
  f.run();
  REQUIRE(f.progress.size() == 40);
  CHECK(f.progress.front().percent == Approx(0));
  CHECK(f.progress.front().test == "compute");
  CHECK(f.progress.back().percent == Approx(100.0 * 39 / 40));
  CHECK(f.progress.back().test == "peer_bandwidth");
  for (std::size_t i = 1; i < f.progress.size(); ++i) {
    CHECK(f.progress[i].percent > f.progress[i - 1].percent);
  }
}

TEST_CASE("agent runner collects health deltas xids heat and throttling", "[agent]") {
  Fixture f(json::array({{{"gpu", 1}, {"kind", "ecc_errors"}, {"uncorrected", 2}, {"corrected", 5}},
                         {{"gpu", 2}, {"kind", "thermal_throttle"}},
                         {{"gpu", 6}, {"kind", "xid"}, {"code", 79}}}));
  auto result = f.run();
  const auto& ecc = f.healthOf(result, "SIM-0001-GPU1");
  CHECK(ecc.ecc_uncorrected == 2);
  CHECK(ecc.ecc_corrected == 5);
  const auto& hot = f.healthOf(result, "SIM-0001-GPU2");
  CHECK(hot.max_temperature_c == 92);
  CHECK(hot.throttle_reasons == std::vector<std::string>{"hw_thermal"});
  CHECK(f.healthOf(result, "SIM-0001-GPU6").xid_events == std::vector<int>{79});
  CHECK(f.healthOf(result, "SIM-0001-GPU5").xid_events.empty());
}

TEST_CASE("agent runner names the GPU and test of a backend error and goes on", "[agent]") {
  Fixture f(json::array({{{"gpu", 3}, {"kind", "kernel_error"}, {"test", "hbm_bandwidth"}}}));
  auto result = f.run();
  CHECK(result.measurements.size() == 39);
  CHECK(result.error.find("GPU 3") != std::string::npos);
  CHECK(result.error.find("SIM-0001-GPU3") != std::string::npos);
  CHECK(result.error.find("hbm_bandwidth") != std::string::npos);
}

TEST_CASE("agent runner stops when progress says so and without GPUs", "[agent]") {
  Fixture f;
  int calls = 0;
  auto result = agent::runBurnIn(5, agent::defaultBurnInPlan(), *f.sim, f.gpus_found,
                                 [&](const agent::Progress&) { return ++calls < 3; });
  CHECK(calls == 3);
  CHECK(result.measurements.size() == 2);
  CHECK_FALSE(result.error.empty());

  auto empty = agent::runBurnIn(6, agent::defaultBurnInPlan(), *f.sim, {}, {});
  CHECK(empty.error == "no GPUs found");
}

TEST_CASE("agent runner skips a missing GPU that discovery left out", "[agent]") {
  Fixture f(json::array({{{"gpu", 7}, {"kind", "missing"}}}));
  auto result = f.run();
  CHECK(result.error.empty());
  CHECK(result.measurements.size() == 5 * 7);
  CHECK(result.health.size() == 7);
}

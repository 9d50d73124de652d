#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <random>

#include "agent/verdict.hpp"

using Catch::Matchers::Contains;

namespace {

const std::string kModel = "NVIDIA H100 80GB HBM3";

agent::BurnInPlan computeOnlyPlan() {
  agent::BurnInPlan plan;
  plan.tests = {agent::PlanTest{"compute", 10, std::nullopt}};
  return plan;
}

std::optional<double> nominals(const std::string& model, const std::string& test) {
  if (model != kModel) return std::nullopt;
  if (test == "compute") return 700.0;
  if (test == "hbm_bandwidth") return 2900.0;
  return std::nullopt;
}

// A node whose GPUs are serial "S0".."S<n-1>", all on healthy PCIe links.
agent::Facts nodeFacts(int gpus) {
  agent::Facts facts;
  for (int i = 0; i < gpus; ++i) {
    agent::GpuFacts gpu;
    gpu.index = i;
    gpu.serial = "S" + std::to_string(i);
    gpu.model = kModel;
    gpu.pcie = {16, 16, 5, 5};
    facts.gpus.push_back(gpu);
  }
  return facts;
}

agent::Measurement compute(const std::string& serial, double value) {
  return {serial, "GPU-" + serial, kModel, "compute", value, "TFLOP/s", ""};
}

// Healthy GPUs: nominal 700 TFLOP/s with 0.5% noise, from a fixed seed.
std::vector<double> healthyValues(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> noise(700.0, 3.5);
  std::vector<double> values;
  for (std::size_t i = 0; i < n; ++i) values.push_back(noise(rng));
  return values;
}

struct Scenario {
  agent::BurnInPlan plan = computeOnlyPlan();
  agent::Facts facts = nodeFacts(8);
  agent::TaskResult result;
  agent::PeerValues peers;
  int expected_gpus = 0;

  // Eight GPUs measured at the given values, 56 healthy peers in the batch.
  explicit Scenario(std::vector<double> own = healthyValues(8, 7)) {
    for (std::size_t i = 0; i < own.size(); ++i) {
      result.measurements.push_back(compute("S" + std::to_string(i), own[i]));
    }
    peers[{kModel, "compute"}] = healthyValues(56, 11);
  }
  agent::Verdict run() const {
    agent::VerdictInput input;
    input.plan = &plan;
    input.facts = &facts;
    input.result = &result;
    input.peers = &peers;
    input.expected_gpus = expected_gpus;
    input.nominal_of = nominals;
    return agent::evaluate(input);
  }
};

std::vector<std::string> reasons(const agent::Verdict& verdict) {
  std::vector<std::string> out;
  for (const auto& f : verdict.failures) out.push_back(f.reason);
  return out;
}

}  // namespace

TEST_CASE("median and MAD on known data sets", "[unit][verdict]") {
  CHECK(agent::median({3, 1, 2}) == 2);
  CHECK(agent::median({4, 1, 3, 2}) == 2.5);
  CHECK(agent::median({}) == 0);
  CHECK(agent::medianAbsoluteDeviation({1, 2, 3, 4, 100}) == 1);
  CHECK(agent::medianAbsoluteDeviation({2, 4, 4, 4, 5, 5, 7, 9}) == 0.5);  // median 4.5
}

TEST_CASE("robustZ scales by MAD and falls back to the mean absolute deviation",
          "[unit][verdict]") {
  const std::vector<double> data = {1, 2, 3, 4, 100};
  CHECK(agent::robustZ(100, data) == Approx(0.6745 * 97));
  CHECK(agent::robustZ(1, data) == Approx(-1.349));
  // MAD is 0 (most values equal): mean |x - 5| = 0.8, z = 0.7979 * 4 / 0.8.
  CHECK(agent::robustZ(9, {5, 5, 5, 5, 9}) == Approx(3.9895));
  CHECK(agent::robustZ(1, {5, 5, 5, 5, 9}) == Approx(-3.9895));
  CHECK(agent::robustZ(7, {7, 7, 7}) == 0);
  CHECK(agent::robustZ(7, {}) == 0);
}

TEST_CASE("A healthy batch of 64 noisy GPUs raises no false flags", "[unit][verdict]") {
  Scenario s;
  auto verdict = s.run();
  CHECK(verdict.passed);
  CHECK(verdict.failures.empty());
  REQUIRE(verdict.evaluations.size() == 8);
  for (const auto& e : verdict.evaluations) {
    CHECK(e.passed);
    CHECK(e.batch_size == 64);
    REQUIRE(e.robust_z.has_value());
    CHECK(*e.robust_z > -3.5);
    CHECK(e.nominal == 700.0);
    CHECK(e.threshold == 0.85);
  }
}

TEST_CASE("A weak GPU above threshold but far below its batch is an outlier", "[unit][verdict]") {
  auto own = healthyValues(8, 7);
  own[3] = 640;  // 91% of nominal: passes the threshold, not the batch
  Scenario s(own);
  auto verdict = s.run();
  CHECK_FALSE(verdict.passed);
  REQUIRE(verdict.failures.size() == 1);
  const auto& f = verdict.failures[0];
  CHECK(f.gpu_serial == "S3");
  CHECK(f.check == "compute");
  CHECK(f.reason == "outlier");
  CHECK(f.value == 640);
  REQUIRE(f.batch_median.has_value());
  CHECK(*f.batch_median == Approx(700).margin(2));
  CHECK_THAT(f.message, Contains("GPU S3 compute 640.0 TFLOP/s is an outlier"));
  CHECK(*verdict.evaluations[3].robust_z < -3.5);
}

TEST_CASE("A result below the threshold fails with a message naming the measurement",
          "[unit][verdict]") {
  agent::BurnInPlan plan;
  plan.tests = {agent::PlanTest{"hbm_bandwidth", 10, std::nullopt}};
  auto facts = nodeFacts(1);
  facts.gpus[0].serial = "1654922004561";
  agent::TaskResult result;
  result.measurements = {{"1654922004561", "GPU-x", kModel, "hbm_bandwidth", 2104.3, "GB/s", ""}};
  agent::PeerValues peers{{{kModel, "hbm_bandwidth"}, {2885.0, 2890.1, 2890.1, 2895.0}}};
  agent::VerdictInput input{&plan, &facts, &result, &peers, 0, nominals};
  auto verdict = agent::evaluate(input);
  REQUIRE(verdict.failures.size() == 1);
  CHECK(verdict.failures[0].reason == "below_threshold");
  CHECK(verdict.failures[0].nominal == 2900.0);
  CHECK(verdict.failures[0].message ==
        "GPU 1654922004561 hbm_bandwidth 2104.3 GB/s is below 85% of nominal 2900.0 GB/s "
        "(batch median 2890.1 GB/s)");

  plan.tests[0].threshold = 0.7;  // the test's own threshold overrides the default
  CHECK(agent::evaluate(input).passed);
}

TEST_CASE("With the default plan a GPU 4 percent below its peers passes and 8 percent fails",
          "[unit][verdict]") {
  // Over 10,000 GPUs a 1% noise figure 3.5 sigma low happens dozens of times: the default floor
  // on the spread (2% of the median) keeps those healthy parts out of quarantine.
  auto own = healthyValues(8, 7);
  own[2] = 672;  // 4% below the batch
  CHECK(Scenario(own).run().passed);
  own[2] = 644;  // 8% below
  CHECK(reasons(Scenario(own).run()) == std::vector<std::string>{"outlier"});
}

TEST_CASE("A batch smaller than min_batch_size gets no outlier check", "[unit][verdict]") {
  Scenario s({700, 701, 699, 640});
  s.facts = nodeFacts(4);
  s.peers.clear();
  auto verdict = s.run();
  CHECK(verdict.passed);
  for (const auto& e : verdict.evaluations) {
    CHECK_FALSE(e.robust_z.has_value());
    CHECK(e.batch_size == 4);
  }
  s.plan.min_batch_size = 4;  // the same values, now enough of them
  CHECK(reasons(s.run()) == std::vector<std::string>{"outlier"});
}

TEST_CASE("A model without nominal figures is noted and still compared to its batch",
          "[unit][verdict]") {
  Scenario s;
  for (auto& m : s.result.measurements) m.gpu_model = "Unknown GPU";
  s.peers = {{{"Unknown GPU", "compute"}, healthyValues(56, 11)}};
  auto verdict = s.run();
  CHECK(verdict.passed);
  CHECK(verdict.evaluations[0].reason == "no_nominal");
  CHECK_FALSE(verdict.evaluations[0].nominal.has_value());
}

TEST_CASE("Health rules fail ECC XID heat PCIe and missing GPUs", "[unit][verdict]") {
  Scenario s;
  agent::GpuHealth ok{"S0", 5, 0, {13, 31}, 70, {"sw_power_cap"}};
  agent::GpuHealth uncorrectable{"S1", 0, 1, {}, 60, {}};
  agent::GpuHealth corrected{"S2", 101, 0, {}, 60, {}};
  agent::GpuHealth xid{"S3", 0, 0, {13, 79, 48}, 60, {}};
  agent::GpuHealth hot{"S4", 0, 0, {}, 88, {}};
  agent::GpuHealth throttled{"S5", 0, 0, {}, 70, {"hw_slowdown"}};
  s.result.health = {ok, uncorrectable, corrected, xid, hot, throttled};
  s.facts.gpus[6].pcie = {8, 16, 5, 5};
  s.facts.gpus[7].pcie = {16, 16, 4, 5};
  auto verdict = s.run();
  CHECK_FALSE(verdict.passed);
  CHECK(reasons(verdict) == std::vector<std::string>{"ecc_uncorrectable", "ecc_corrected_excess",
                                                     "xid", "thermal", "thermal",
                                                     "pcie_link_degraded", "pcie_link_degraded"});
  CHECK(verdict.failures[2].gpu_serial == "S3");
  CHECK_THAT(verdict.failures[2].message, Contains("48, 79"));
  CHECK_THAT(verdict.failures[5].message, Contains("x8 gen5, capable of x16 gen5"));

  Scenario missing;
  missing.plan.expected_gpus = 9;
  CHECK(reasons(missing.run()) == std::vector<std::string>{"gpu_missing"});
  missing.plan.expected_gpus = 0;
  missing.expected_gpus = 8;
  CHECK(missing.run().passed);
  missing.expected_gpus = 10;
  CHECK(reasons(missing.run()) == std::vector<std::string>{"gpu_missing"});
}

TEST_CASE("An agent error or an untested GPU fails the verdict", "[unit][verdict]") {
  Scenario s;
  s.result.measurements.pop_back();  // S7 never measured
  auto verdict = s.run();
  REQUIRE(reasons(verdict) == std::vector<std::string>{"missing_measurement"});
  CHECK(verdict.failures[0].gpu_serial == "S7");

  s.result.error = "cuInit failed: no CUDA-capable device";
  verdict = s.run();
  CHECK(reasons(verdict) == std::vector<std::string>{"agent_error"});
  CHECK_THAT(verdict.failures[0].message, Contains("cuInit failed"));
}

TEST_CASE("The verdict serialises with snake_case keys", "[unit][verdict]") {
  auto own = healthyValues(8, 7);
  own[0] = 100;
  auto json = agent::toJson(Scenario(own).run());
  CHECK(json["passed"] == false);
  REQUIRE(json["failures"].size() == 1);
  CHECK(json["failures"][0]["reason"] == "below_threshold");
  CHECK(json["failures"][0]["gpu_serial"] == "S0");
  CHECK(json["failures"][0]["nominal"] == 700.0);
  REQUIRE(json["evaluations"].size() == 8);
  CHECK(json["evaluations"][0]["batch_size"] == 64);
  CHECK(json["evaluations"][0]["robust_z"].is_number());
  CHECK(json["evaluations"][0].contains("batch_median"));
  CHECK(json["evaluations"][1]["passed"] == true);
}

TEST_CASE("A tight healthy batch does not turn 1 percent of noise into outliers",
          "[unit][verdict]") {
  // Eight healthy PCIe figures: the MAD is tiny, so without a floor on the spread the 54.6 would
  // score about -6 and fail a healthy GPU.
  const std::vector<double> batch = {55.2, 55.2, 55.3, 55.1, 55.2, 54.6, 55.25, 55.22};
  CHECK(agent::robustZ(54.6, batch) < -3.5);
  const double floored = agent::robustZ(54.6, batch, 0.01);
  CHECK(floored > -1.5);
  CHECK(floored < -0.5);
  // A part 10% down is still far outside, floor or not.
  CHECK(agent::robustZ(49.7, batch, 0.01) < -9);
}

// Canary against control by robust statistics, and the failure budget.
#include <catch2/catch.hpp>

#include <cmath>

#include "workflows/campaign/budget.hpp"
#include "workflows/campaign/gate.hpp"

using namespace workflows::campaign;

namespace {

std::vector<Sample> samples(const std::string& metric, const std::vector<double>& values,
                            std::int64_t first_id = 1, const std::string& model = "DGXH100") {
  std::vector<Sample> out;
  for (double v : values) out.push_back(Sample{first_id++, model, metric, v, ""});
  return out;
}

// 14 H100 nodes' GEMM figures around 975 TFLOP/s, spread about +-0.5%.
std::vector<Sample> control14() {
  return samples("compute", {975, 980, 970, 985, 972, 978, 969, 981, 974, 976, 979, 971, 977, 973},
                 100);
}

}  // namespace

TEST_CASE("a canary 6% slower than its control is a regression", "[campaign]") {
  Gate gate;  // 3%
  auto report = evaluateGate(samples("compute", {917, 917}), control14(), gate);
  REQUIRE(report.regressions.size() == 1);
  const auto& r = report.regressions[0];
  CHECK(report.regressed());
  CHECK(r.model == "DGXH100");
  CHECK(r.metric == "compute");
  CHECK(r.updated_median == Approx(917));
  CHECK(r.control_median == Approx(975.5));
  CHECK(r.delta_percent == Approx((917 - 975.5) / 975.5 * 100));
  CHECK(r.n_updated == 2);
  CHECK(r.n_control == 14);
  CHECK(r.message == "compute -6.0% vs control (median 917 vs 976 TFLOP/s, 2 updated, 14 control)");
  CHECK(report.insufficient.empty());
  CHECK(report.passed.empty());
  CHECK(compareToControl(samples("compute", {917, 917}), control14(), gate).size() == 1);
}

TEST_CASE("a canary 1% slower is within the gate", "[campaign]") {
  auto report = evaluateGate(samples("compute", {966, 965}), control14(), Gate{});
  CHECK(report.regressions.empty());
  CHECK(report.passed == std::vector<std::string>{"DGXH100/compute"});
  CHECK_FALSE(report.regressed());
  // Faster is never a regression.
  CHECK(compareToControl(samples("compute", {1050}), control14(), Gate{}).empty());
}

TEST_CASE("too few control samples is no verdict, not a pass", "[campaign]") {
  auto report =
      evaluateGate(samples("compute", {900}), samples("compute", {975, 980}, 100), Gate{});
  CHECK(report.regressions.empty());
  CHECK(report.passed.empty());
  REQUIRE(report.insufficient.size() == 1);
  CHECK(report.insufficient[0].metric == "compute");
  CHECK(report.insufficient[0].n_updated == 1);
  CHECK(report.insufficient[0].n_control == 2);
  CHECK(report.insufficient[0].message ==
        "compute on DGXH100: 1 updated, 2 control (3 needed): no verdict");
  // No control of that model at all.
  auto other_model = evaluateGate(samples("compute", {900}), control14(), Gate{});
  CHECK(other_model.regressions.size() == 1);
  auto none = evaluateGate(samples("compute", {900}, 1, "DGXB200"), control14(), Gate{});
  REQUIRE(none.insufficient.size() == 1);
  CHECK(none.insufficient[0].model == "DGXB200");
  CHECK(none.insufficient[0].n_control == 0);
  // Exactly three control samples are enough.
  CHECK(
      compareToControl(samples("compute", {900}), samples("compute", {975, 980, 970}, 100), Gate{})
          .size() == 1);
}

TEST_CASE("a noisy control widens the band; a tight one is floored at 1% MAD", "[campaign]") {
  // Control spread +-9%: MAD 200, band 3 * 1.4826 * 200 = 890 below the median: even 18% is noise.
  const auto noisy =
      samples("hbm_bandwidth", {3000, 3100, 3200, 3300, 3400, 3500, 3600}, 100);  // median 3300
  CHECK(compareToControl(samples("hbm_bandwidth", {3100}), noisy, Gate{}).empty());
  CHECK(compareToControl(samples("hbm_bandwidth", {2700}), noisy, Gate{}).empty());
  CHECK(compareToControl(samples("hbm_bandwidth", {2400}), noisy, Gate{}).size() == 1);
  // Identical control figures: MAD 0, floored at 1% of 1000 -> band 44.5: 4% passes, 5% does
  // not, although both are beyond the 3% threshold.
  const auto tight = samples("hbm_bandwidth", {1000, 1000, 1000, 1000}, 100);
  CHECK(compareToControl(samples("hbm_bandwidth", {960}), tight, Gate{}).empty());
  auto five = compareToControl(samples("hbm_bandwidth", {950}), tight, Gate{});
  REQUIRE(five.size() == 1);
  CHECK(five[0].message ==
        "hbm_bandwidth -5.0% vs control (median 950 vs 1000 GB/s, 1 updated, 4 control)");
  // A looser threshold lets the 5% through.
  Gate loose;
  loose.max_regression_percent = 6;
  CHECK(compareToControl(samples("hbm_bandwidth", {950}), tight, loose).empty());
}

TEST_CASE("the gate compares per model and metric, only the metrics it names", "[campaign]") {
  std::vector<Sample> updated = samples("compute", {917});
  auto hbm = samples("hbm_bandwidth", {3000}, 1);
  updated.insert(updated.end(), hbm.begin(), hbm.end());
  auto b200 = samples("compute", {2200}, 5, "DGXB200");
  updated.insert(updated.end(), b200.begin(), b200.end());
  std::vector<Sample> control = control14();
  auto hbm_control = samples("hbm_bandwidth", {3350, 3340, 3360, 3355}, 100);
  control.insert(control.end(), hbm_control.begin(), hbm_control.end());
  auto b200_control = samples("compute", {2250, 2240, 2260}, 200, "DGXB200");
  control.insert(control.end(), b200_control.begin(), b200_control.end());
  auto report = evaluateGate(updated, control, Gate{});
  REQUIRE(report.regressions.size() == 2);
  CHECK(report.regressions[0].metric == "hbm_bandwidth");  // -10.5%, the worst first
  CHECK(report.regressions[1].metric == "compute");
  CHECK(report.passed == std::vector<std::string>{"DGXB200/compute"});  // -2.2%
  Gate only_compute;
  only_compute.metrics = {"compute"};
  auto narrowed = compareToControl(updated, control, only_compute);
  REQUIRE(narrowed.size() == 1);
  CHECK(narrowed[0].metric == "compute");
  Gate other;
  other.metrics = {"pcie_h2d"};
  auto empty = evaluateGate(updated, control, other);
  CHECK(empty.regressions.empty());
  CHECK(empty.insufficient.empty());
  CHECK(empty.passed.empty());
}

TEST_CASE("non-finite figures are ignored and units may be given", "[campaign]") {
  auto control = samples("pcie_h2d", {55, 54.8, 55.2, NAN, 55}, 100);
  std::vector<Sample> updated = {Sample{1, "DGXH100", "pcie_h2d", 49.5, "GB/s"},
                                 Sample{2, "DGXH100", "pcie_h2d", INFINITY, ""}};
  auto r = compareToControl(updated, control, Gate{});
  REQUIRE(r.size() == 1);
  CHECK(r[0].n_control == 4);
  CHECK(r[0].n_updated == 1);
  CHECK(r[0].message ==
        "pcie_h2d -10.0% vs control (median 49.5 vs 55.0 GB/s, 1 updated, 4 "
        "control)");
}

TEST_CASE("the failure budget by count, by share, and both", "[campaign]") {
  FailureBudget count;
  count.count = 2;
  CHECK_FALSE(budget(count, 10, 0).spent);
  CHECK_FALSE(budget(count, 10, 2).spent);
  auto spent = budget(count, 10, 3);
  CHECK(spent.spent);
  CHECK(spent.reason == "3 failures > budget 2");
  FailureBudget zero;
  zero.count = 0;
  CHECK_FALSE(budget(zero, 5, 0).spent);
  CHECK(budget(zero, 5, 1).reason == "1 failure > budget 0");
  FailureBudget share;
  share.percent = 10;
  CHECK_FALSE(budget(share, 20, 2).spent);  // exactly 10%
  auto over = budget(share, 20, 3);
  CHECK(over.spent);
  CHECK(over.reason == "3 of 20 started nodes failed (15.0% > budget 10.0%)");
  CHECK_FALSE(budget(share, 0, 0).spent);
  FailureBudget both;
  both.count = 5;
  both.percent = 10;
  CHECK(budget(both, 10, 2).spent);    // 20% > 10%, within the count
  CHECK(budget(both, 1000, 6).spent);  // 0.6%, beyond the count
  CHECK_FALSE(budget(both, 100, 5).spent);
  CHECK_FALSE(budget(FailureBudget{}, 10, 10).spent);  // no budget given: never spent
}

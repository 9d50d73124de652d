#include "agent/verdict.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <numeric>
#include <set>

namespace agent {
namespace {

constexpr double kMadScale = 0.6745;     // makes MAD comparable to a standard deviation
constexpr double kMeanAdScale = 0.7979;  // the same for the mean absolute deviation
constexpr std::size_t kMaxAgentErrorText = 300;
const std::set<int> kCriticalXids = {48, 61, 62, 63, 64, 74, 79, 92, 94, 95, 119, 120};
constexpr std::string_view kThermalThrottles[] = {"hw_thermal", "sw_thermal", "hw_slowdown"};

std::string fixed(double value, int decimals = 1) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
  return buffer;
}

std::string withUnit(double value, const std::string& unit) {
  return unit.empty() ? fixed(value) : fixed(value) + " " + unit;
}

std::string percent(double fraction) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%g", fraction * 100);
  return buffer;
}

// "hbm_bandwidth", or "peer_bandwidth to 1654922004562" for a pair test.
std::string testLabel(const Measurement& m) {
  return m.peer_serial.empty() ? m.test : m.test + " to " + m.peer_serial;
}

double thresholdFor(const BurnInPlan& plan, const std::string& test) {
  for (const auto& t : plan.tests) {
    if (t.name == test && t.threshold) return *t.threshold;
  }
  return plan.default_threshold;
}

using Key = std::pair<std::string, std::string>;  // (model, test)

// Batch peers plus this run's own values, per (model, test).
std::map<Key, std::vector<double>> populations(const VerdictInput& input) {
  std::map<Key, std::vector<double>> result;
  if (input.peers != nullptr) result = *input.peers;
  for (const auto& m : input.result->measurements) {
    result[{m.gpu_model, m.test}].push_back(m.value);
  }
  return result;
}

std::string medianText(const Evaluation& e) {
  return e.batch_median ? withUnit(*e.batch_median, e.measurement.unit) : "unknown";
}

std::string belowThresholdMessage(const Evaluation& e) {
  const auto& m = e.measurement;
  return "GPU " + m.gpu_serial + " " + testLabel(m) + " " + withUnit(m.value, m.unit) +
         " is below " + percent(e.threshold) + "% of nominal " + withUnit(*e.nominal, m.unit) +
         " (batch median " + medianText(e) + ")";
}

std::string outlierMessage(const Evaluation& e, double outlier_z) {
  const auto& m = e.measurement;
  return "GPU " + m.gpu_serial + " " + testLabel(m) + " " + withUnit(m.value, m.unit) +
         " is an outlier in its batch: robust z " + fixed(*e.robust_z, 2) +
         " <= " + fixed(outlier_z, 2) + " (batch median " + medianText(e) + " over " +
         std::to_string(e.batch_size) + " results, nominal " +
         (e.nominal ? withUnit(*e.nominal, m.unit) : std::string("unknown")) + ")";
}

Evaluation evaluateMeasurement(const Measurement& m, const VerdictInput& input,
                               const std::map<Key, std::vector<double>>& population_of) {
  const BurnInPlan& plan = *input.plan;
  Evaluation e;
  e.measurement = m;
  e.threshold = thresholdFor(plan, m.test);
  if (input.nominal_of) e.nominal = input.nominal_of(m.gpu_model, m.test);
  const auto& population = population_of.at({m.gpu_model, m.test});
  e.batch_size = static_cast<int>(population.size());
  e.batch_median = median(population);
  // No peers given means no batch to compare against (the header's contract).
  if (input.peers != nullptr && e.batch_size >= plan.min_batch_size) {
    e.robust_z = robustZ(m.value, population, plan.outlier_min_spread);
  }

  if (!std::isfinite(m.value)) {
    e.passed = false;
    e.reason = "invalid_value";
  } else if (e.nominal && m.value < e.threshold * *e.nominal) {
    e.passed = false;
    e.reason = "below_threshold";
  } else if (e.robust_z && *e.robust_z <= plan.outlier_z) {
    e.passed = false;
    e.reason = "outlier";
  } else if (!e.nominal) {
    e.reason = "no_nominal";
  }
  return e;
}

Failure failureOf(const Evaluation& e, double outlier_z) {
  const auto& m = e.measurement;
  Failure f{m.gpu_serial, m.test, e.reason, m.value, e.nominal, e.batch_median, {}};
  if (e.reason == "below_threshold") {
    f.message = belowThresholdMessage(e);
  } else if (e.reason == "outlier") {
    f.message = outlierMessage(e, outlier_z);
  } else {
    f.message =
        "GPU " + m.gpu_serial + " " + testLabel(m) + " reported a value that is not a number";
  }
  return f;
}

Failure healthFailure(const std::string& serial, std::string check, std::string reason,
                      std::optional<double> value, std::string message) {
  return Failure{serial,
                 std::move(check),
                 std::move(reason),
                 value,
                 std::nullopt,
                 std::nullopt,
                 "GPU " + serial + " " + std::move(message)};
}

void checkEcc(const GpuHealth& h, const BurnInPlan& plan, std::vector<Failure>& out) {
  if (h.ecc_uncorrected > 0) {
    out.push_back(healthFailure(
        h.gpu_serial, "ecc", "ecc_uncorrectable", static_cast<double>(h.ecc_uncorrected),
        "had " + std::to_string(h.ecc_uncorrected) + " uncorrectable ECC errors during burn-in"));
  }
  if (h.ecc_corrected > plan.max_corrected_ecc) {
    out.push_back(healthFailure(
        h.gpu_serial, "ecc", "ecc_corrected_excess", static_cast<double>(h.ecc_corrected),
        "had " + std::to_string(h.ecc_corrected) + " corrected ECC errors during burn-in (limit " +
            std::to_string(plan.max_corrected_ecc) + ")"));
  }
}

void checkXids(const GpuHealth& h, std::vector<Failure>& out) {
  std::set<int> critical;
  for (int xid : h.xid_events) {
    if (kCriticalXids.count(xid) != 0) critical.insert(xid);
  }
  if (critical.empty()) return;
  std::string list;
  for (int xid : critical) list += (list.empty() ? "" : ", ") + std::to_string(xid);
  out.push_back(healthFailure(h.gpu_serial, "xid", "xid", *critical.begin(),
                              "reported critical XID " + list));
}

void checkThermal(const GpuHealth& h, const BurnInPlan& plan, std::vector<Failure>& out) {
  std::string throttles;
  for (const auto& reason : h.throttle_reasons) {
    const bool thermal =
        std::any_of(std::begin(kThermalThrottles), std::end(kThermalThrottles),
                    [&](std::string_view t) { return reason.find(t) != std::string::npos; });
    if (thermal) throttles += (throttles.empty() ? "" : ", ") + reason;
  }
  const bool too_hot = h.max_temperature_c > plan.max_temperature_c;
  if (throttles.empty() && !too_hot) return;
  std::string message = "reached " + std::to_string(h.max_temperature_c) + " C (limit " +
                        std::to_string(plan.max_temperature_c) + " C)";
  if (!throttles.empty()) message += " and throttled (" + throttles + ")";
  out.push_back(healthFailure(h.gpu_serial, "thermal", "thermal", h.max_temperature_c, message));
}

void checkPcie(const Facts& facts, std::vector<Failure>& out) {
  for (const auto& gpu : facts.gpus) {
    const auto& l = gpu.pcie;
    if (l.current_width >= l.max_width && l.current_gen >= l.max_gen) continue;
    out.push_back(healthFailure(gpu.serial, "pcie_link", "pcie_link_degraded", l.current_width,
                                "PCIe link runs at x" + std::to_string(l.current_width) + " gen" +
                                    std::to_string(l.current_gen) + ", capable of x" +
                                    std::to_string(l.max_width) + " gen" +
                                    std::to_string(l.max_gen)));
  }
}

bool hasMeasurement(const TaskResult& result, const std::string& serial, const std::string& test) {
  return std::any_of(result.measurements.begin(), result.measurements.end(), [&](const auto& m) {
    return m.test == test && (m.gpu_serial == serial || m.peer_serial == serial);
  });
}

// A GPU the plan should have measured but the result says nothing about fails: an untested
// part must not pass. Pair tests need at least two GPUs.
void checkCoverage(const VerdictInput& input, std::vector<Failure>& out) {
  for (const auto& test : input.plan->tests) {
    if (test.name == kTestPeerBandwidth && input.facts->gpus.size() < 2) continue;
    for (const auto& gpu : input.facts->gpus) {
      if (hasMeasurement(*input.result, gpu.serial, test.name)) continue;
      out.push_back(healthFailure(gpu.serial, test.name, "missing_measurement", std::nullopt,
                                  "has no " + test.name + " result"));
    }
  }
}

void checkGpuCount(const VerdictInput& input, std::vector<Failure>& out) {
  const int expected =
      input.plan->expected_gpus > 0 ? input.plan->expected_gpus : input.expected_gpus;
  const int found = static_cast<int>(input.facts->gpus.size());
  if (expected <= 0 || found >= expected) return;
  out.push_back(
      Failure{"", "gpu_missing", "gpu_missing", found, expected, std::nullopt,
              "found " + std::to_string(found) + " GPUs, expected " + std::to_string(expected)});
}

void checkHealth(const VerdictInput& input, std::vector<Failure>& out) {
  for (const auto& h : input.result->health) {
    checkEcc(h, *input.plan, out);
    checkXids(h, out);
    checkThermal(h, *input.plan, out);
  }
  if (input.facts != nullptr) {
    checkPcie(*input.facts, out);
    checkGpuCount(input, out);
  }
}

}  // namespace

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  const std::size_t mid = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid), values.end());
  const double upper = values[mid];
  if (values.size() % 2 == 1) return upper;
  const double lower =
      *std::max_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid));
  return (lower + upper) / 2;
}

double medianAbsoluteDeviation(const std::vector<double>& values) {
  const double center = median(values);
  std::vector<double> deviations;
  deviations.reserve(values.size());
  for (double v : values) deviations.push_back(std::fabs(v - center));
  return median(std::move(deviations));
}

double robustZ(double x, const std::vector<double>& population, double min_relative_spread) {
  if (population.empty()) return 0;
  const double center = median(population);
  double spread = medianAbsoluteDeviation(population) / kMadScale;
  if (spread <= 0) {
    // More than half the population is identical: fall back to the mean absolute deviation.
    const double mean_ad =
        std::accumulate(population.begin(), population.end(), 0.0,
                        [center](double sum, double v) { return sum + std::fabs(v - center); }) /
        static_cast<double>(population.size());
    spread = mean_ad / kMeanAdScale;
  }
  spread = std::max(spread, min_relative_spread * std::fabs(center));
  return spread > 0 ? (x - center) / spread : 0;
}

Verdict evaluate(const VerdictInput& input) {
  static const BurnInPlan kNoPlan{};
  static const TaskResult kNoResult{};
  VerdictInput in = input;
  if (in.plan == nullptr) in.plan = &kNoPlan;
  if (in.result == nullptr) in.result = &kNoResult;

  Verdict verdict;
  const auto population_of = populations(in);
  for (const auto& m : in.result->measurements) {
    verdict.evaluations.push_back(evaluateMeasurement(m, in, population_of));
    if (!verdict.evaluations.back().passed) {
      verdict.failures.push_back(failureOf(verdict.evaluations.back(), in.plan->outlier_z));
    }
  }
  checkHealth(in, verdict.failures);
  if (!in.result->error.empty()) {
    verdict.failures.push_back(Failure{
        "", "agent", "agent_error", std::nullopt, std::nullopt, std::nullopt,
        "the agent could not run the task: " + in.result->error.substr(0, kMaxAgentErrorText)});
  } else if (in.facts != nullptr) {
    checkCoverage(in, verdict.failures);
  }
  verdict.passed = verdict.failures.empty();
  return verdict;
}

nlohmann::json toJson(const Verdict& verdict) {
  using nlohmann::json;
  auto optional = [](const std::optional<double>& v) { return v ? json(*v) : json(nullptr); };
  json failures = json::array();
  for (const auto& f : verdict.failures) {
    failures.push_back({{"gpu_serial", f.gpu_serial},
                        {"check", f.check},
                        {"reason", f.reason},
                        {"value", optional(f.value)},
                        {"nominal", optional(f.nominal)},
                        {"batch_median", optional(f.batch_median)},
                        {"message", f.message}});
  }
  json evaluations = json::array();
  for (const auto& e : verdict.evaluations) {
    const auto& m = e.measurement;
    evaluations.push_back({{"gpu_serial", m.gpu_serial},
                           {"gpu_uuid", m.gpu_uuid},
                           {"gpu_model", m.gpu_model},
                           {"test", m.test},
                           {"value", m.value},
                           {"unit", m.unit},
                           {"peer_serial", m.peer_serial},
                           {"nominal", optional(e.nominal)},
                           {"threshold", e.threshold},
                           {"batch_median", optional(e.batch_median)},
                           {"robust_z", optional(e.robust_z)},
                           {"batch_size", e.batch_size},
                           {"passed", e.passed},
                           {"reason", e.reason}});
  }
  return {{"passed", verdict.passed},
          {"failures", std::move(failures)},
          {"evaluations", std::move(evaluations)}};
}

}  // namespace agent

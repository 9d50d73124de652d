// The burn-in verdict: absolute thresholds against nominal, fleet-relative outliers (robust
// z-score on median and MAD against batch peers), and the health watch (ECC, XID, heat, PCIe).
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "agent/protocol.hpp"

namespace agent {

double median(std::vector<double> values);
// Median absolute deviation from the median (unscaled).
double medianAbsoluteDeviation(const std::vector<double>& values);
// (x - median) / spread, where spread = MAD / 0.6745 (so 0.6745 * (x - median) / MAD). When MAD is
// 0 the mean absolute deviation (divided by 0.7979) is the spread. The spread is never taken as
// less than min_relative_spread * |median|: in a tight batch a 1% wobble is measurement noise, not
// a weak part. With no spread at all (all equal, no floor) the score is 0.
double robustZ(double x, const std::vector<double>& population, double min_relative_spread = 0);

// The other GPUs of the batch (same model, same batch window), by (model name, test).
using PeerValues = std::map<std::pair<std::string, std::string>, std::vector<double>>;

struct Evaluation {
  Measurement measurement;
  std::optional<double> nominal;
  double threshold = 0;  // fraction of nominal
  std::optional<double> batch_median;
  std::optional<double> robust_z;
  int batch_size = 0;  // the population the z-score was computed on (peers + this run)
  bool passed = true;
  std::string reason;  // "", "below_threshold", "outlier", "no_nominal" (passes, noted)
};

struct Failure {
  std::string gpu_serial;
  std::string check;   // a test name, or "ecc", "xid", "thermal", "pcie_link", "gpu_missing"
  std::string reason;  // "below_threshold", "outlier", "ecc_uncorrectable", ...
  std::optional<double> value;
  std::optional<double> nominal;
  std::optional<double> batch_median;
  std::string message;  // one sentence naming serial, test, value, nominal and batch median
};

struct Verdict {
  bool passed = true;
  std::vector<Evaluation> evaluations;
  std::vector<Failure> failures;
};

struct VerdictInput {
  const BurnInPlan* plan = nullptr;
  const Facts* facts = nullptr;  // PCIe links and the GPUs present
  const TaskResult* result = nullptr;
  const PeerValues* peers = nullptr;  // may be null: no outlier check
  int expected_gpus = 0;              // from the inventory when the plan does not say; 0 = unknown
  // The nominal figure of (reported model name, test), e.g. nominalValue(nominalFor(model), test);
  // nullopt or an empty function: no absolute check (the evaluation notes "no_nominal").
  std::function<std::optional<double>(const std::string& model, const std::string& test)>
      nominal_of;
};

Verdict evaluate(const VerdictInput& input);

nlohmann::json toJson(const Verdict& verdict);

}  // namespace agent

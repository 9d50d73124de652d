// Canary against control (pure): each wave's quick-check figures against not-yet-updated nodes of
// the same model, by robust statistics. Every metric is "higher is better" (TFLOP/s, GB/s).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "workflows/campaign/spec.hpp"

namespace workflows::campaign {

struct Sample {
  std::int64_t node_id = 0;
  std::string model;
  std::string metric;  // the agent's test name: compute, hbm_bandwidth, pcie_h2d, peer_bandwidth
  double value = 0.0;  // one figure per node and metric (e.g. the node's median over its GPUs)
  std::string unit;    // empty: TFLOP/s for compute and gemm*, else GB/s
};

struct Regression {
  std::string model, metric;
  double updated_median = 0, control_median = 0, delta_percent = 0;
  int n_updated = 0, n_control = 0;
  // "gemm_bf16 -6.0% vs control (median 917 vs 975 TFLOP/s, 2 updated, 14 control)"
  std::string message;
};

// A (model, metric) the updated nodes reported but that has too few control samples (< 3) for a
// verdict: neither a pass nor a regression.
struct InsufficientData {
  std::string model, metric;
  int n_updated = 0, n_control = 0;
  std::string message;  // "compute on DGXH100: 2 updated, 1 control (3 needed): no verdict"
};

struct GateReport {
  std::vector<Regression> regressions;         // worst (most negative delta) first
  std::vector<InsufficientData> insufficient;  // by model, metric
  std::vector<std::string> passed;             // "model/metric" compared and within the gate
  bool regressed() const { return !regressions.empty(); }
};

inline constexpr int kMinControlSamples = 3;
inline constexpr double kMadScale = 1.4826;  // MAD -> standard deviation for normal data
inline constexpr double kSpreadMads = 3.0;
inline constexpr double kMadFloorShare = 0.01;  // the MAD is at least 1% of the control median

// Per (model, metric) the updated nodes reported (and the gate selects), with at least 1 updated
// and 3 control samples: delta = (median(updated) - median(control)) / median(control); a
// regression when delta < -max_regression_percent / 100 AND
// median(updated) < median(control) - 3 * 1.4826 * max(MAD(control), 1% of median(control)).
// Non-finite values are ignored; a control median <= 0 gives no verdict.
GateReport evaluateGate(const std::vector<Sample>& updated, const std::vector<Sample>& control,
                        const Gate& gate);
// Only the regressions of evaluateGate.
std::vector<Regression> compareToControl(const std::vector<Sample>& updated,
                                         const std::vector<Sample>& control, const Gate& gate);

}  // namespace workflows::campaign

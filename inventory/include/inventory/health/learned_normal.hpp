// The learned-normal detector (issue 25 §4), pure: beside the static rules, each GPU is judged
// against what is normal for *it*, learned from its own history, rather than against a fixed
// threshold. A GPU's daily mean is compared with its node-mates' that day (the GPUs of one node
// share the job, the load, the inlet air and the hour), which leaves what is the GPU's own: a
// constant offset (its position, paste, silicon) and noise. The offset and the noise's spread
// are learned from the GPU's earlier days; what accumulates beyond them is scored by a one-sided
// CUSUM (Page 1954), which catches a small shift that persists (a creep of a few degrees, a clock
// losing 2%) long before any one day looks abnormal. Correctable ECC errors are judged the same
// way against the GPU's own learned error rate (a Poisson likelihood-ratio CUSUM), so a GPU that
// always logged 2 a day is not news and one going from 0 to 5 is.
//
// The rules of kind kLearnedNormal in the policy carry the parameters (rules.hpp). No I/O: the
// flag evaluation run (workflows) and the recall benchmark (bench/health_flags) feed this.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "inventory/health/rules.hpp"

namespace inventory::health {

// One GPU's complete days, oldest first (as GpuEvidence::days).
struct GpuHistory {
  std::string serial;
  std::span<const DayAggregate> days;
};

// The GPUs of one node (one model), each with its history.
struct NodeHistory {
  std::string label;  // "node 1234", for the reason
  std::vector<GpuHistory> gpus;
};

// The kLearnedNormal rules of `policy` over one node. A GPU is flagged when its CUSUM is at or
// above the rule's `cusum_h` on the node's latest day; the flag's time is the end of the first
// day of that excursion.
std::vector<FlagDraft> evaluateLearnedNormal(const Policy& policy, const NodeHistory& node);

// The pieces, for tests and the documentation.

// The running state of one GPU's learned-normal CUSUM over its days.
struct LearnedCusum {
  double value = 0;               // S after the latest day
  std::optional<Days> excursion;  // first day of the current run with S >= h
  double normal = 0;    // the learned normal on the latest day (median residual, or rate r0)
  double spread = 0;    // the spread used then (robust sd; for ECC the alternative rate r1)
  int normal_days = 0;  // days the normal was learned from
  double latest = 0;    // the latest day's value
  std::vector<std::pair<Days, double>> scores;  // each judged day's score (z or increment)
};

// One-sided CUSUM of `residuals` (day, value, oldest first) against a normal learned from the
// earlier days that were not part of a run: z = direction x (value - median) / max(1.4826 x MAD,
// min_spread), capped at `z_cap` (one day, however extreme, is not a trend), S = max(0, S + z -
// k). Days before `min_baseline_days` normal days exist only teach.
LearnedCusum residualCusum(const std::vector<std::pair<Days, double>>& residuals, double direction,
                           double min_spread, int min_baseline_days, int max_baseline_days,
                           double k, double h, double z_cap);

// The trend of `residuals` over the last `days` calendar days ending with the latest one:
// direction x least-squares slope / (spread / sqrt(sum (x - mean x)^2)), x in days, the values
// clipped to 3 spreads around their median; nullopt with fewer than days - 1 points in that
// span.
struct LearnedTrend {
  double z = 0;
  double slope = 0;  // residual units per day
  int points = 0;
  Days last{};
};
std::optional<LearnedTrend> residualTrend(const std::vector<std::pair<Days, double>>& residuals,
                                          double direction, double spread, int days);

// Poisson likelihood-ratio CUSUM of daily counts against the GPU's learned rate r0 (the mean of
// its normal days without their largest one, raised by two standard errors, at least
// `min_rate`) and the alternative r1 = max(ratio x r0, r0 + min_increase): the day's increment is
// count x ln(r1 / r0) - (r1 - r0), capped at `cap`.
LearnedCusum rateCusum(const std::vector<std::pair<Days, double>>& counts, double min_rate,
                       double ratio, double min_increase, int min_baseline_days,
                       int max_baseline_days, double h, double cap);

}  // namespace inventory::health

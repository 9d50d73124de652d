// The health policy (issue 13 §3), pure: a table of rules, each with an id, a documented source,
// thresholds, a severity and an action, and the functions that apply it to one GPU's recent
// history (daily roll-ups, latest counter state, XID bursts, remaps, past flags) or to a peer
// group (GPUs of one model in one rack). Every rule yields FlagDrafts with a one-line reason
// naming the value and the threshold, and the evidence as JSON. No I/O: the flag evaluation run
// (workflows) and the recall benchmark (bench/health_flags) feed the same code.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "inventory/health/flag.hpp"
#include "inventory/health/rollup_math.hpp"
#include "inventory/health/time.hpp"
#include "inventory/health/xid_bursts.hpp"

namespace inventory::health {

// One GPU's day as gpu_health_daily holds it (the rows of all nodes it was in, merged).
struct DayAggregate {
  Days day{};
  std::int64_t samples = 0;
  Stat temperature_c;
  Stat power_w;
  Stat sm_clock_mhz;
  std::int64_t throttled_samples = 0;
  std::int64_t ecc_corrected = 0;  // new errors that day (reset-corrected)
  std::int64_t ecc_uncorrected = 0;
  std::int64_t xids = 0;
  std::int64_t pcie_replays = 0;  // new PCIe replays that day (reset-corrected)
  Stat hbm_temperature_c;
  Stat mem_clock_mhz;
  Stat gpu_utilization_pct;
};

// The GPU's latest counter state (gpu_counter_state).
struct CounterSnapshot {
  Seconds at{};  // the last reading
  bool remap_pending = false;
  bool remap_failure = false;
};

// Rows newly remapped by one reading (a `rows_remapped` event: correctable + uncorrectable).
struct RemapSeen {
  Seconds at{};
  std::int64_t rows = 0;
};

// One ended hour's new PCIe replays (gpu_health_hourly, reset-corrected).
struct HourReplays {
  Seconds hour{};  // the hour's start
  std::int64_t replays = 0;
};

// A flag raised earlier for this GPU (open or not), for the repeat-offender score.
struct PastFlag {
  std::string rule;
  Seconds raised_at{};
};

// What the per-GPU rules look at. Everything oldest first; the caller passes (at least) the
// longest lookback of the policy (30 days).
struct GpuEvidence {
  std::string serial;
  Seconds now{};                   // the evaluation's time
  std::vector<DayAggregate> days;  // complete days only
  std::optional<CounterSnapshot> counters;
  std::vector<XidBurst> xid_bursts;
  std::vector<RemapSeen> remaps;
  std::vector<PastFlag> past_flags;
  std::vector<HourReplays> hourly_replays;  // ended hours with replays, within a day of `now`
};

enum class RuleKind {
  kRemapPending,    // counter state says a row remap is pending
  kRemapFailure,    // counter state says a row remap failed
  kXid,             // a burst of one of `xids` within `window`
  kEccCusum,        // one-sided CUSUM of log2(1 + daily correctable ECC errors)
  kRemapGrowth,     // rows remapped on >= `min_days` distinct days within `window`
  kPeer,            // robust z-score of a daily mean against the peer group
  kPeerDrift,       // the GPU's residual against its peers, against its own baseline
  kXidRecurring,    // bursts of XIDs not in `xids` (hardware ones) on >= `min_days` days
  kRepeatOffender,  // distinct bad days within `window`
  kLearnedNormal,   // the GPU against its own learned normal (learned_normal.hpp)
  kIdleInBusyNode,  // the GPU idle while its node-mates are busy (idle_gpu.hpp)
  kReplayRate,      // an hour's PCIe replays above `max_per_minute` a minute on average
};

// kHbmTemperature, and the daily counts kEccCorrected and kPcieReplays: for kLearnedNormal rules
// only.
enum class PeerMetric {
  kTemperature,
  kSmClock,
  kPower,
  kEccCorrected,
  kPcieReplays,
  kHbmTemperature,
  kMemClock
};
enum class Direction { kHigh, kLow, kEither };

struct Rule {
  std::string id;  // "nvidia.remap_failure", "trend.ecc_cusum", "peer.temperature", ...
  RuleKind kind = RuleKind::kXid;
  std::string source;  // where the signal's meaning, the action or the threshold comes from
  FlagSeverity severity = FlagSeverity::kWarning;
  FlagAction action = FlagAction::kWatch;

  // kXid: the XIDs; kRepeatOffender: XIDs that do not count (application errors).
  std::vector<int> xids;
  // kXid: how recent the burst must be; kRemapGrowth, kRepeatOffender: the lookback.
  std::chrono::hours window{24};
  // kEccCusum: reference value k (log2 errors/day a healthy GPU may show) and decision
  // threshold h.
  double cusum_k = 0;
  double cusum_h = 0;
  // kRemapGrowth: distinct days with new remapped rows; kPeer: consecutive days an outlier;
  // kRepeatOffender: distinct bad days.
  int min_days = 0;
  // kPeer.
  PeerMetric metric = PeerMetric::kTemperature;
  Direction direction = Direction::kHigh;
  double z = 0;                  // |robust z| at least this
  double min_deviation = 0;      // and |value - median| at least this (metric units) ...
  double min_relative = 0;       // ... and at least this fraction of the median
  int min_peers = 0;             // GPUs with a value that day, the GPU itself included
  std::int64_t min_samples = 0;  // readings in the day for a daily mean to count
  // Similar load: a GPU-day counts (as a peer and as a candidate) only when its mean power is
  // at least this fraction of the group's 90th-percentile power that day (idle or lightly
  // loaded GPUs run cooler, slower and at lower power than busy ones; they are compared with
  // nobody).
  double min_load_fraction = 0;
  // kPeerDrift: days before the recent `min_days` that form the GPU's baseline (at least this
  // many), and whether the residual is adjusted for load (the Theil-Sen slope of the metric on
  // power across the peers that day).
  int min_baseline_days = 0;
  bool load_adjust = false;
  // kLearnedNormal (with min_peers: node-mates besides the GPU; min_samples; min_load_fraction:
  // of the GPU's own 90th-percentile daily power; min_baseline_days; cusum_k, cusum_h;
  // min_deviation: the smallest spread assumed, in the residual's units: C for temperature, a
  // fraction of the mates' median for clock and power). The most normal days remembered, and
  // the most one day adds to the CUSUM (in robust sd for metrics, in log-likelihood for ECC).
  int max_baseline_days = 0;
  double day_cap = 0;
  // kLearnedNormal on a metric: also flag a steady trend of the residual over the last
  // `trend_days` days (0: not), when its (clipped) slope is at least `trend_z` standard errors
  // (the node's learned spread / sqrt(sum (day - mean day)^2)). It needs no learned normal, so
  // it sees a GPU that was already degrading when it was first watched.
  int trend_days = 0;
  double trend_z = 0;
  // kLearnedNormal on a count (kEccCorrected, kPcieReplays): the lowest rate assumed (a day), the
  // alternative rate tested: max(rate_ratio x normal, normal + rate_increase).
  double rate_floor = 0;
  double rate_ratio = 0;
  double rate_increase = 0;
  // kIdleInBusyNode (with min_days: consecutive days ending with the node's latest one;
  // min_peers: node-mates with utilisation that day; min_samples: utilisation readings in a day
  // for its mean to count): the GPU's daily mean utilisation at most `idle_below` percent while
  // its mates' median is at least `busy_above` percent.
  double idle_below = 0;
  double busy_above = 0;
  // kReplayRate (with window: how recent the hour must be): the most PCIe replays a minute an
  // ended hour may average.
  double max_per_minute = 0;
};

using Policy = std::vector<Rule>;

// The service's policy (docs/health.md, "Rules and their sources").
const Policy& defaultPolicy();

// Stable names used in JSON ("learned_normal", "sm_clock_mhz", "high").
std::string_view toString(RuleKind k);
std::string_view toString(PeerMetric m);
std::string_view toString(Direction d);
const Rule* findRule(const Policy& policy, const std::string& id);

// The per-GPU rules (every kind but kPeer). kRepeatOffender counts the drafts of the other
// rules in this evaluation too.
std::vector<FlagDraft> evaluateGpu(const Policy& policy, const GpuEvidence& evidence);

// One peer group's daily means (same model, same rack), oldest day first.
struct PeerReading {
  std::string serial;
  std::int64_t samples = 0;
  std::optional<double> temperature_c;
  std::optional<double> sm_clock_mhz;
  std::optional<double> power_w;
};
struct PeerDay {
  Days day{};
  std::vector<PeerReading> gpus;
};
struct PeerGroup {
  std::string label;  // "rack r12, NVIDIA H100 80GB HBM3", for the reason
  std::vector<PeerDay> days;
};

// The kPeer and kPeerDrift rules over a group. kPeer: a GPU is flagged when it was an outlier
// on each of the rule's last `min_days` days (consecutive calendar days ending with the group's
// latest day). kPeerDrift: each day, the GPU's residual is its value minus the peers' median
// (minus slope x its power's distance from the peers' median power, when load-adjusted); it is
// flagged when on each of the last `min_days` days its residual moved from its own baseline
// (the median residual of the earlier days) by at least max(min_deviation, min_relative x the
// peers' median, z x 1.4826 x the baseline's MAD). A GPU that always ran hotter is not flagged;
// one that is getting hotter than its peers is.
std::vector<FlagDraft> evaluatePeerGroup(const Policy& policy, const PeerGroup& group);

// The pieces, for tests and the documentation.
double median(std::vector<double> values);  // of a non-empty set
// The 90th percentile (nearest rank below) of a non-empty set.
double percentile90(std::vector<double> values);
double medianAbsoluteDeviation(const std::vector<double>& values, double median);
// 0.6745 (x - median) / MAD (Iglewicz and Hoaglin); MAD 0 is taken as a tiny positive number.
double robustZ(double x, double median, double mad);

// The Theil-Sen estimator: the median of the pairwise slopes (y_j - y_i) / (x_j - x_i), pairs
// with |x_j - x_i| < min_dx left out; 0 when no pair is left.
double theilSenSlope(const std::vector<std::pair<double, double>>& xy, double min_dx);

struct CusumResult {
  double value = 0;               // S on the latest day
  std::optional<Days> excursion;  // first day of the current run with S >= h
};
CusumResult eccCusum(const std::vector<DayAggregate>& days, double k, double h);

// The end of a day (when its roll-up is complete): the time a daily rule's evidence is from.
inline Seconds endOf(Days d) {
  return Seconds{d + std::chrono::days{1}};
}

}  // namespace inventory::health

#include "inventory/health/learned_normal.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>

#include "health/rule_drafts.hpp"

namespace inventory::health {
namespace {

using detail::draftOf;
using detail::fmt;
using nlohmann::json;

// The normal days a judgement looks at: the latest `max_days` of them.
std::vector<double> window(const std::vector<double>& normal, int max_days) {
  const auto n = static_cast<std::ptrdiff_t>(normal.size());
  const auto from = max_days > 0 ? std::max<std::ptrdiff_t>(0, n - max_days) : 0;
  return {normal.begin() + from, normal.end()};
}

// The shared CUSUM walk: `score` judges one day against the normal days so far; a day that
// leaves S at 0 ends any run, and the run's days join the normal ones (it was a false start).
template <typename Score>
LearnedCusum walk(const std::vector<std::pair<Days, double>>& series, int min_baseline_days,
                  double h, Score score) {
  LearnedCusum out;
  std::vector<double> normal, run;
  for (const auto& [day, v] : series) {
    out.latest = v;
    if (static_cast<int>(normal.size()) < std::max(1, min_baseline_days)) {
      normal.push_back(v);  // still learning
      continue;
    }
    const double inc = score(v, normal, out);
    out.scores.emplace_back(day, inc);
    out.value = std::max(0.0, out.value + inc);
    if (out.value > 0) {
      run.push_back(v);
      if (out.value >= h && !out.excursion) out.excursion = day;
    } else {
      normal.insert(normal.end(), run.begin(), run.end());
      normal.push_back(v);
      run.clear();
      out.excursion.reset();
    }
  }
  return out;
}

// The Hodges-Lehmann estimator: the median of the pairwise means (the points themselves
// included). As robust as a median to a few odd days (29% breakdown) and nearly as precise as a
// mean on normal ones (95% efficiency against the median's 64%): a GPU's normal is learned from
// a handful of days, where the median's error alone would look like a shift.
double hodgesLehmann(const std::vector<double>& xs) {
  std::vector<double> means;
  means.reserve(xs.size() * (xs.size() + 1) / 2);
  for (std::size_t i = 0; i < xs.size(); ++i) {
    for (std::size_t j = i; j < xs.size(); ++j) means.push_back((xs[i] + xs[j]) / 2);
  }
  return median(std::move(means));
}

// Temperatures compare in degrees; clock and power as a fraction of the mates' median.
bool inDegrees(PeerMetric m) {
  return m == PeerMetric::kTemperature || m == PeerMetric::kHbmTemperature;
}

std::optional<double> dailyValue(const DayAggregate& d, PeerMetric m) {
  const Stat* s = m == PeerMetric::kTemperature      ? &d.temperature_c
                  : m == PeerMetric::kHbmTemperature ? &d.hbm_temperature_c
                  : m == PeerMetric::kSmClock        ? &d.sm_clock_mhz
                  : m == PeerMetric::kMemClock       ? &d.mem_clock_mhz
                  : m == PeerMetric::kPower          ? &d.power_w
                                                     : nullptr;
  if (!s) return std::nullopt;
  const auto v = s->avg();
  if (!v || !std::isfinite(*v)) return std::nullopt;
  return v;
}

// Each GPU's residuals against its node-mates, on the days it and at least `min_peers` mates
// were loaded (mean power >= min_load_fraction of the GPU's own 90th-percentile daily power):
// temperature in C, clock and power as a fraction of the mates' median.
std::vector<std::vector<std::pair<Days, double>>> residualsAgainstMates(const Rule& r,
                                                                        const NodeHistory& node) {
  std::map<Days, std::vector<std::pair<std::size_t, double>>> by_day;
  for (std::size_t i = 0; i < node.gpus.size(); ++i) {
    std::vector<double> powers;
    for (const auto& d : node.gpus[i].days) {
      if (d.samples >= r.min_samples) {
        if (auto p = dailyValue(d, PeerMetric::kPower)) powers.push_back(*p);
      }
    }
    if (powers.empty()) continue;
    const double min_power = r.min_load_fraction * percentile90(powers);
    for (const auto& d : node.gpus[i].days) {
      const auto p = dailyValue(d, PeerMetric::kPower);
      const auto v = dailyValue(d, r.metric);
      if (d.samples < r.min_samples || !p || *p < min_power || !v) continue;
      by_day[d.day].emplace_back(i, *v);
    }
  }
  std::vector<std::vector<std::pair<Days, double>>> out(node.gpus.size());
  for (const auto& [day, values] : by_day) {
    if (static_cast<int>(values.size()) < r.min_peers + 1) continue;
    for (const auto& [i, v] : values) {
      std::vector<double> mates;
      for (const auto& [j, w] : values) {
        if (j != i) mates.push_back(w);
      }
      const double med = median(mates);
      const double res = inDegrees(r.metric) ? v - med : (med != 0 ? v / med - 1 : 0.0);
      out[i].emplace_back(day, res);
    }
  }
  return out;
}

json recentScores(const LearnedCusum& c) {
  json out = json::array();
  const std::size_t n = c.scores.size();
  for (std::size_t i = n > 7 ? n - 7 : 0; i < n; ++i) {
    out.push_back({{"day", formatDay(c.scores[i].first)}, {"score", c.scores[i].second}});
  }
  return out;
}

std::string unitOf(PeerMetric m, double v) {
  if (inDegrees(m)) return (v >= 0 ? "+" : "") + fmt(v) + " C";
  return (v >= 0 ? "+" : "") + fmt(100 * v, 2) + "%";
}

// The node's day-to-day spread, from the differences between each GPU's successive residuals
// (1.4826 x MAD / sqrt 2), pooled over the node's GPUs. Differences need no centre, so a
// handful of days does not make the spread look small (deviations from a GPU's own median of 7
// days would, by a third), and neither a GPU's offset nor a slow trend inflates it.
double pooledSpread(const std::vector<std::vector<std::pair<Days, double>>>& residuals) {
  std::vector<double> differences;
  for (const auto& series : residuals) {
    for (std::size_t i = 1; i < series.size(); ++i) {
      differences.push_back(series[i].second - series[i - 1].second);
    }
  }
  if (differences.size() < 2) return 0;
  return 1.4826 * medianAbsoluteDeviation(differences, median(differences)) / std::sqrt(2.0);
}

void trendRule(const Rule& r, const NodeHistory& node,
               const std::vector<std::pair<Days, double>>& residuals, double direction,
               double spread, const std::string& serial, std::vector<FlagDraft>& out) {
  if (r.trend_days <= 1) return;
  const auto t = residualTrend(residuals, direction, spread, r.trend_days);
  if (!t || t->z < r.trend_z) return;
  const std::string m(toString(r.metric));
  const double rise = t->slope * (r.trend_days - 1);
  out.push_back(draftOf(r, serial, endOf(t->last),
                        m + (direction > 0 ? " rising" : " falling") +
                            " against its node-mates: " + unitOf(r.metric, rise) + " over " +
                            std::to_string(r.trend_days) + " days, trend " + fmt(t->z) +
                            " standard errors (threshold " + fmt(r.trend_z) + "; spread " +
                            unitOf(r.metric, spread).substr(1) + "), in " + node.label,
                        json{{"metric", m},
                             {"trend_z", t->z},
                             {"threshold", r.trend_z},
                             {"slope_per_day", t->slope},
                             {"days", r.trend_days},
                             {"points", t->points},
                             {"spread", spread},
                             {"relative", !inDegrees(r.metric)},
                             {"day", formatDay(t->last)},
                             {"group", node.label}}));
}

// The rule in one direction (+1 upwards, -1 downwards) over residuals computed once per rule.
void metricRule(const Rule& r, const NodeHistory& node,
                const std::vector<std::vector<std::pair<Days, double>>>& residuals, double floor,
                double direction, std::vector<FlagDraft>& out) {
  for (std::size_t i = 0; i < node.gpus.size(); ++i) {
    const LearnedCusum c = residualCusum(residuals[i], direction, floor, r.min_baseline_days,
                                         r.max_baseline_days, r.cusum_k, r.cusum_h, r.day_cap);
    if (!c.excursion) {
      trendRule(r, node, residuals[i], direction, floor, node.gpus[i].serial, out);
      continue;
    }
    const std::string m(toString(r.metric));
    out.push_back(draftOf(r, node.gpus[i].serial, endOf(*c.excursion),
                          m + (direction > 0 ? " above" : " below") +
                              " its learned normal against its node-mates: CUSUM " + fmt(c.value) +
                              " >= " + fmt(r.cusum_h) + " since " + formatDay(*c.excursion) +
                              " (normal " + unitOf(r.metric, c.normal) + " +/- " +
                              unitOf(r.metric, c.spread).substr(1) + " over " +
                              std::to_string(c.normal_days) + " days; latest " +
                              unitOf(r.metric, c.latest) + "), in " + node.label,
                          json{{"metric", m},
                               {"cusum", c.value},
                               {"k", r.cusum_k},
                               {"h", r.cusum_h},
                               {"excursion_from", formatDay(*c.excursion)},
                               {"normal_residual", c.normal},
                               {"normal_spread", c.spread},
                               {"normal_days", c.normal_days},
                               {"latest_residual", c.latest},
                               {"relative", !inDegrees(r.metric)},
                               {"recent_increments", recentScores(c)},
                               {"group", node.label}}));
  }
}

// The daily count a count rule reads, and how its reason names it.
std::int64_t dailyCount(const DayAggregate& d, PeerMetric m) {
  return m == PeerMetric::kPcieReplays ? d.pcie_replays : d.ecc_corrected;
}
const char* countWords(PeerMetric m) {
  return m == PeerMetric::kPcieReplays ? "PCIe replays" : "correctable ECC errors";
}

void countRule(const Rule& r, const NodeHistory& node, std::vector<FlagDraft>& out) {
  for (const auto& g : node.gpus) {
    std::vector<std::pair<Days, double>> counts;
    for (const auto& d : g.days) {
      if (d.samples >= r.min_samples) {
        counts.emplace_back(
            d.day, static_cast<double>(std::max<std::int64_t>(dailyCount(d, r.metric), 0)));
      }
    }
    const LearnedCusum c =
        rateCusum(counts, r.rate_floor, r.rate_ratio, r.rate_increase, r.min_baseline_days,
                  r.max_baseline_days, r.cusum_h, r.day_cap);
    if (!c.excursion) continue;
    out.push_back(
        draftOf(r, g.serial, endOf(*c.excursion),
                std::string(countWords(r.metric)) + " above the GPU's learned rate: CUSUM " +
                    fmt(c.value) + " >= " + fmt(r.cusum_h) + " since " + formatDay(*c.excursion) +
                    " (normal " + fmt(c.normal, 2) + "/day over " + std::to_string(c.normal_days) +
                    " days, tested against " + fmt(c.spread, 2) + "/day; latest " +
                    fmt(c.latest, 0) + "/day), in " + node.label,
                json{{"metric", toString(r.metric)},
                     {"cusum", c.value},
                     {"h", r.cusum_h},
                     {"excursion_from", formatDay(*c.excursion)},
                     {"normal_rate", c.normal},
                     {"alternative_rate", c.spread},
                     {"normal_days", c.normal_days},
                     {"latest_count", c.latest},
                     {"recent_increments", recentScores(c)},
                     {"group", node.label}}));
  }
}

}  // namespace

LearnedCusum residualCusum(const std::vector<std::pair<Days, double>>& residuals, double direction,
                           double min_spread, int min_baseline_days, int max_baseline_days,
                           double k, double h, double z_cap) {
  return walk(residuals, min_baseline_days, h,
              [&](double v, const std::vector<double>& normal, LearnedCusum& out) {
                const auto w = window(normal, max_baseline_days);
                const double med = hodgesLehmann(w);
                // The spread of a new day around a normal learned from n days: the day's own
                // spread and the estimate's error (variance ~1.05 sigma^2 / n), so that a few
                // normal days are not taken for a precise normal.
                const double n = static_cast<double>(w.size());
                const double spread =
                    std::max(1.4826 * medianAbsoluteDeviation(w, med), min_spread) *
                    std::sqrt(1 + 1.05 / n);
                out.normal = med;
                out.spread = spread;
                out.normal_days = static_cast<int>(w.size());
                return std::min(direction * (v - med) / spread, z_cap) - k;
              });
}

std::optional<LearnedTrend> residualTrend(const std::vector<std::pair<Days, double>>& residuals,
                                          double direction, double spread, int days) {
  if (residuals.empty() || spread <= 0) return std::nullopt;
  const Days last = residuals.back().first;
  std::vector<std::pair<double, double>> xy;
  for (const auto& [day, v] : residuals) {
    const auto age = (last - day).count();
    if (age < days) xy.emplace_back(static_cast<double>(-age), v);
  }
  if (static_cast<int>(xy.size()) < days - 1) return std::nullopt;
  // Least squares on values clipped to 3 spreads around the window's median: one odd day
  // cannot make a trend, and the slope's standard error is the textbook one (a Theil-Sen slope
  // over 7 or 8 points has heavier tails than its asymptotic error says).
  std::vector<double> ys;
  for (const auto& [x, y] : xy) ys.push_back(y);
  const double mid = median(ys);
  double mean_x = 0, mean_y = 0;
  for (auto& [x, y] : xy) {
    y = std::clamp(y, mid - 3 * spread, mid + 3 * spread);
    mean_x += x;
    mean_y += y;
  }
  mean_x /= static_cast<double>(xy.size());
  mean_y /= static_cast<double>(xy.size());
  double sxx = 0, sxy = 0;
  for (const auto& [x, y] : xy) {
    sxx += (x - mean_x) * (x - mean_x);
    sxy += (x - mean_x) * (y - mean_y);
  }
  if (sxx <= 0) return std::nullopt;
  LearnedTrend t;
  t.slope = sxy / sxx;
  t.z = direction * t.slope * std::sqrt(sxx) / spread;
  t.points = static_cast<int>(xy.size());
  t.last = last;
  return t;
}

LearnedCusum rateCusum(const std::vector<std::pair<Days, double>>& counts, double min_rate,
                       double ratio, double min_increase, int min_baseline_days,
                       int max_baseline_days, double h, double cap) {
  return walk(counts, min_baseline_days, h,
              [&](double c, const std::vector<double>& normal, LearnedCusum& out) {
                const auto w = window(normal, max_baseline_days);
                double sum = 0, top = 0;
                for (double x : w) {
                  sum += x;
                  top = std::max(top, x);
                }
                // Without its worst day (one burst is not a rate), plus two standard errors
                // (a few quiet days do not prove a low rate).
                const double n = static_cast<double>(w.size() > 1 ? w.size() - 1 : 1);
                const double mean = w.size() > 1 ? (sum - top) / n : sum;
                const double r0 =
                    std::max(min_rate, mean + 2 * std::sqrt(std::max(mean, min_rate) / n));
                const double r1 = std::max(ratio * r0, r0 + min_increase);
                out.normal = r0;
                out.spread = r1;
                out.normal_days = static_cast<int>(w.size());
                return std::min(c * std::log(r1 / r0) - (r1 - r0), cap);
              });
}

std::vector<FlagDraft> evaluateLearnedNormal(const Policy& policy, const NodeHistory& node) {
  std::vector<FlagDraft> out;
  for (const auto& r : policy) {
    if (r.kind != RuleKind::kLearnedNormal) continue;
    if (r.metric == PeerMetric::kEccCorrected || r.metric == PeerMetric::kPcieReplays) {
      countRule(r, node, out);
      continue;
    }
    const auto residuals = residualsAgainstMates(r, node);
    const double floor = std::max(r.min_deviation, pooledSpread(residuals));
    if (r.direction != Direction::kLow) metricRule(r, node, residuals, floor, +1, out);
    if (r.direction != Direction::kHigh) metricRule(r, node, residuals, floor, -1, out);
  }
  return out;
}

}  // namespace inventory::health

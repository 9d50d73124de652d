#include "workflows/campaign/gate.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

namespace workflows::campaign {
namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double mad(const std::vector<double>& v, double m) {
  std::vector<double> dev;
  dev.reserve(v.size());
  for (double x : v) dev.push_back(std::fabs(x - m));
  return median(std::move(dev));
}

using Key = std::pair<std::string, std::string>;  // model, metric

struct Series {
  std::vector<double> values;
  std::string unit;
};

std::map<Key, Series> byKey(const std::vector<Sample>& samples) {
  std::map<Key, Series> out;
  for (const auto& s : samples) {
    if (!std::isfinite(s.value)) continue;
    auto& series = out[{s.model, s.metric}];
    series.values.push_back(s.value);
    if (series.unit.empty()) series.unit = s.unit;
  }
  return out;
}

bool wanted(const Gate& gate, const std::string& metric) {
  return gate.metrics.empty() ||
         std::find(gate.metrics.begin(), gate.metrics.end(), metric) != gate.metrics.end();
}

std::string unitOf(const std::string& metric, const std::string& given) {
  if (!given.empty()) return given;
  return metric == "compute" || metric.rfind("gemm", 0) == 0 ? "TFLOP/s" : "GB/s";
}

// 917, 55.3, 3.42: as many decimals as a figure of that size deserves.
std::string figure(double v) {
  char text[32];
  const double a = std::fabs(v);
  std::snprintf(text, sizeof text, a >= 100 ? "%.0f" : a >= 10 ? "%.1f" : "%.2f", v);
  return text;
}

Regression regression(const Key& key, double um, double cm, int n_updated, int n_control,
                      const std::string& unit) {
  Regression r;
  r.model = key.first;
  r.metric = key.second;
  r.updated_median = um;
  r.control_median = cm;
  r.delta_percent = (um - cm) / cm * 100.0;
  r.n_updated = n_updated;
  r.n_control = n_control;
  char delta[32];
  std::snprintf(delta, sizeof delta, "%+.1f%%", r.delta_percent);
  r.message = r.metric + " " + delta + " vs control (median " + figure(um) + " vs " + figure(cm) +
              " " + unit + ", " + std::to_string(n_updated) + " updated, " +
              std::to_string(n_control) + " control)";
  return r;
}

InsufficientData insufficient(const Key& key, int n_updated, int n_control, const char* why) {
  InsufficientData d{key.first, key.second, n_updated, n_control, ""};
  d.message = key.second + " on " + key.first + ": " + std::to_string(n_updated) + " updated, " +
              std::to_string(n_control) + " control (" + why + "): no verdict";
  return d;
}

}  // namespace

GateReport evaluateGate(const std::vector<Sample>& updated, const std::vector<Sample>& control,
                        const Gate& gate) {
  const auto treated = byKey(updated);
  const auto controls = byKey(control);
  GateReport report;
  for (const auto& [key, series] : treated) {
    if (!wanted(gate, key.second)) continue;
    const int n_updated = static_cast<int>(series.values.size());
    auto c = controls.find(key);
    const int n_control = c == controls.end() ? 0 : static_cast<int>(c->second.values.size());
    if (n_control < kMinControlSamples) {
      report.insufficient.push_back(insufficient(key, n_updated, n_control, "3 needed"));
      continue;
    }
    const double cm = median(c->second.values);
    if (!(cm > 0)) {
      report.insufficient.push_back(insufficient(key, n_updated, n_control, "control median <= 0"));
      continue;
    }
    const double um = median(series.values);
    const double spread =
        kSpreadMads * kMadScale * std::max(mad(c->second.values, cm), kMadFloorShare * cm);
    const double delta = (um - cm) / cm;
    if (delta < -gate.max_regression_percent / 100.0 && um < cm - spread) {
      report.regressions.push_back(
          regression(key, um, cm, n_updated, n_control, unitOf(key.second, series.unit)));
    } else {
      report.passed.push_back(key.first + "/" + key.second);
    }
  }
  std::stable_sort(
      report.regressions.begin(), report.regressions.end(),
      [](const Regression& a, const Regression& b) { return a.delta_percent < b.delta_percent; });
  return report;
}

std::vector<Regression> compareToControl(const std::vector<Sample>& updated,
                                         const std::vector<Sample>& control, const Gate& gate) {
  return evaluateGate(updated, control, gate).regressions;
}

}  // namespace workflows::campaign

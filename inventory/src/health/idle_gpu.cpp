#include "inventory/health/idle_gpu.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <string>

#include "rule_drafts.hpp"

namespace inventory::health {
namespace {

using detail::draftOf;
using detail::fmt;
using nlohmann::json;

// A GPU's mean utilisation that day, when enough readings carried one.
std::optional<double> utilisationOn(const GpuHistory& gpu, Days day, std::int64_t min_samples) {
  for (const auto& d : gpu.days) {
    if (d.day != day) continue;
    if (d.gpu_utilization_pct.count < std::max<std::int64_t>(1, min_samples)) return std::nullopt;
    return d.gpu_utilization_pct.avg();
  }
  return std::nullopt;
}

// The GPU's mean and its mates' median on one day; nullopt when either is not known well enough.
struct IdleDay {
  Days day{};
  double gpu = 0;
  double mates = 0;
  int mates_n = 0;
};

std::optional<IdleDay> idleDay(const Rule& r, const NodeHistory& node, std::size_t i, Days day) {
  const auto own = utilisationOn(node.gpus[i], day, r.min_samples);
  if (!own) return std::nullopt;
  std::vector<double> mates;
  for (std::size_t j = 0; j < node.gpus.size(); ++j) {
    if (j == i) continue;
    if (auto u = utilisationOn(node.gpus[j], day, r.min_samples)) mates.push_back(*u);
  }
  if (static_cast<int>(mates.size()) < std::max(1, r.min_peers)) return std::nullopt;
  return IdleDay{day, *own, median(mates), static_cast<int>(mates.size())};
}

Days latestDay(const NodeHistory& node) {
  Days latest{};
  for (const auto& g : node.gpus) {
    if (!g.days.empty()) latest = std::max(latest, g.days.back().day);
  }
  return latest;
}

void idleRule(const Rule& r, const NodeHistory& node, std::vector<FlagDraft>& out) {
  if (r.min_days <= 0 || node.gpus.size() < 2) return;
  const Days last = latestDay(node);
  for (std::size_t i = 0; i < node.gpus.size(); ++i) {
    std::vector<IdleDay> days;
    for (int back = r.min_days - 1; back >= 0; --back) {
      auto d = idleDay(r, node, i, last - std::chrono::days{back});
      if (!d || d->gpu > r.idle_below || d->mates < r.busy_above) break;
      days.push_back(*d);
    }
    if (static_cast<int>(days.size()) < r.min_days) continue;
    json evidence_days = json::array();
    for (const auto& d : days) {
      evidence_days.push_back({{"day", formatDay(d.day)},
                               {"utilization_pct", d.gpu},
                               {"mates_median_pct", d.mates},
                               {"mates", d.mates_n}});
    }
    const IdleDay& latest = days.back();
    out.push_back(draftOf(r, node.gpus[i].serial, endOf(last),
                          "idle in a busy node: utilisation " + fmt(latest.gpu) + "% (at most " +
                              fmt(r.idle_below, 0) + "%) while its " +
                              std::to_string(latest.mates_n) + " node-mates' median is " +
                              fmt(latest.mates) + "% (at least " + fmt(r.busy_above, 0) + "%), " +
                              std::to_string(r.min_days) + " days running, in " + node.label,
                          json{{"idle_below", r.idle_below},
                               {"busy_above", r.busy_above},
                               {"min_days", r.min_days},
                               {"group", node.label},
                               {"days", evidence_days}}));
  }
}

}  // namespace

std::vector<FlagDraft> evaluateIdleGpus(const Policy& policy, const NodeHistory& node) {
  std::vector<FlagDraft> out;
  for (const auto& r : policy) {
    if (r.kind == RuleKind::kIdleInBusyNode) idleRule(r, node, out);
  }
  return out;
}

}  // namespace inventory::health

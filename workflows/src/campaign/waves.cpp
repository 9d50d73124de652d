#include "workflows/campaign/waves.hpp"

#include <algorithm>
#include <cmath>

namespace workflows::campaign {
namespace {

// Takes one element from each list in turn (list order), until all are empty.
template <typename T>
std::vector<T> roundRobin(std::vector<std::vector<T>> lists) {
  std::vector<T> out;
  for (std::size_t round = 0;; ++round) {
    bool any = false;
    for (auto& list : lists) {
      if (round < list.size()) {
        out.push_back(std::move(list[round]));
        any = true;
      }
    }
    if (!any) break;
  }
  return out;
}

// The node's failure domains that the caps name ("pdu=p1,nvlink_domain=n3"): nodes sharing
// them are spread apart within their rack.
std::string domainKey(const PlanNode& n, const Caps& caps) {
  std::string key;
  for (const auto& [label, cap] : caps.per_label) {
    (void)cap;
    auto v = n.labels.find(label);
    key += label + "=" + (v == n.labels.end() ? "" : v->second) + ",";
  }
  return key;
}

// Round-robin over racks (site/rack in name order); within a rack, round-robin over its failure
// domains (domain key order), nodes by id within a domain. Consecutive nodes of the plan sit in
// different racks, so a wave takes at most its share of any one rack or domain.
std::vector<PlanNode> spreadOrder(std::vector<PlanNode> nodes, const Caps& caps) {
  std::sort(nodes.begin(), nodes.end(),
            [](const PlanNode& a, const PlanNode& b) { return a.id < b.id; });
  std::map<std::string, std::map<std::string, std::vector<PlanNode>>> by_rack;
  for (auto& n : nodes) {
    by_rack[n.site + "/" + n.rack][domainKey(n, caps)].push_back(std::move(n));
  }
  std::vector<std::vector<PlanNode>> racks;
  for (auto& [rack, domains] : by_rack) {
    std::vector<std::vector<PlanNode>> lists;
    for (auto& [domain, list] : domains) lists.push_back(std::move(list));
    racks.push_back(roundRobin(std::move(lists)));
  }
  return roundRobin(std::move(racks));
}

std::size_t ceilPercent(double percent, std::size_t of) {
  return static_cast<std::size_t>(std::ceil(percent * static_cast<double>(of) / 100.0 - 1e-9));
}

}  // namespace

std::vector<Wave> planWaves(const CampaignSpec& spec, std::vector<PlanNode> nodes) {
  std::vector<PlanNode> order = spreadOrder(std::move(nodes), spec.caps);
  std::vector<std::size_t> sizes;
  const std::size_t total = order.size();
  if (total == 0) return {};
  std::size_t canary = spec.canary.count > 0 ? static_cast<std::size_t>(spec.canary.count)
                                             : ceilPercent(spec.canary.percent, total);
  canary = std::clamp<std::size_t>(canary, 1, total);
  sizes.push_back(canary);
  const std::size_t rest = total - canary;
  std::size_t left = rest;
  for (std::size_t i = 0; i < spec.waves.size() && left > 0; ++i) {
    const bool last = i + 1 == spec.waves.size();
    const auto& w = spec.waves[i];
    std::size_t size =
        w.rest || last ? left : std::max<std::size_t>(1, ceilPercent(w.percent, rest));
    size = std::min(size, left);
    sizes.push_back(size);
    left -= size;
  }
  if (left > 0) sizes.push_back(left);
  std::vector<Wave> waves;
  std::size_t at = 0;
  for (std::size_t w = 0; w < sizes.size(); ++w) {
    Wave wave;
    wave.index = static_cast<int>(w);
    for (std::size_t k = 0; k < sizes[w]; ++k, ++at) {
      wave.nodes.push_back(PlannedNode{order[at], wave.index, static_cast<int>(at)});
    }
    waves.push_back(std::move(wave));
  }
  return waves;
}

Admission admit(const Caps& caps, const InFlight& f, const PlanNode& node) {
  if (caps.global > 0 && f.global >= caps.global) return {false, "global"};
  if (caps.per_rack > 0) {
    auto it = f.per_rack.find(node.rack);
    if (it != f.per_rack.end() && it->second >= caps.per_rack) {
      return {false, "per_rack:" + node.rack};
    }
  }
  for (const auto& [key, cap] : caps.per_label) {
    if (cap <= 0) continue;  // 0: unlimited, as for the other caps
    auto value = node.labels.find(key);
    if (value == node.labels.end()) continue;  // a node without the label is in no such domain
    auto counts = f.per_label.find(key);
    if (counts == f.per_label.end()) continue;
    auto n = counts->second.find(value->second);
    if (n != counts->second.end() && n->second >= cap) {
      return {false, "label:" + key + "=" + value->second};
    }
  }
  return {true, ""};
}

void addInFlight(InFlight& f, const PlanNode& node) {
  ++f.global;
  ++f.per_rack[node.rack];
  for (const auto& [key, value] : node.labels) ++f.per_label[key][value];
}

std::vector<std::int64_t> pickAdmissible(const Caps& caps, InFlight f,
                                         const std::vector<PlanNode>& candidates) {
  std::vector<std::int64_t> out;
  for (const auto& node : candidates) {
    if (caps.global > 0 && f.global >= caps.global) break;
    if (!admit(caps, f, node).admitted) continue;
    addInFlight(f, node);
    out.push_back(node.id);
  }
  return out;
}

double makespanLowerBound(const std::vector<Wave>& plan, const Caps& caps, double per_node_seconds,
                          double bake_seconds) {
  double total = 0;
  for (std::size_t w = 0; w < plan.size(); ++w) {
    const auto& nodes = plan[w].nodes;
    if (nodes.empty()) continue;
    std::size_t rounds = 1;
    if (caps.global > 0) {
      rounds = std::max(rounds, (nodes.size() + static_cast<std::size_t>(caps.global) - 1) /
                                    static_cast<std::size_t>(caps.global));
    }
    std::map<std::string, std::size_t> per_rack;
    std::map<std::pair<std::string, std::string>, std::size_t> per_label;  // key, value
    for (const auto& p : nodes) {
      ++per_rack[p.node.rack];
      for (const auto& [key, value] : p.node.labels) {
        if (caps.per_label.count(key)) ++per_label[{key, value}];
      }
    }
    const auto roundsFor = [](std::size_t n, int cap) {
      return (n + static_cast<std::size_t>(cap) - 1) / static_cast<std::size_t>(cap);
    };
    if (caps.per_rack > 0) {
      for (const auto& [rack, n] : per_rack) rounds = std::max(rounds, roundsFor(n, caps.per_rack));
    }
    for (const auto& [kv, n] : per_label) {
      const int cap = caps.per_label.at(kv.first);
      if (cap > 0) rounds = std::max(rounds, roundsFor(n, cap));
    }
    total += static_cast<double>(rounds) * per_node_seconds;
    if (w + 1 < plan.size()) total += bake_seconds;
  }
  return total;
}

}  // namespace workflows::campaign

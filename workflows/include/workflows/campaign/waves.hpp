// Wave planning and admission under caps (pure). A plan orders the nodes so that consecutive
// nodes are spread across racks and failure domains; waves take consecutive slices of it.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "workflows/campaign/spec.hpp"

namespace workflows::campaign {

struct PlanNode {
  std::int64_t id = 0;
  std::string site, rack, model;
  std::map<std::string, std::string> labels;
};

struct PlannedNode {
  PlanNode node;
  int wave = 0;
  int position = 0;  // across the whole plan, from 0
};

struct Wave {
  int index = 0;  // 0 is the canary
  std::vector<PlannedNode> nodes;
};

// Deterministic (the input order does not matter): the canary is wave 0 (count, or percent of all
// rounded up; at least 1, at most all), then the spec's waves, each a percentage of the nodes after
// the canary rounded up and at least 1; "rest" (or the last wave) takes what is left; no empty
// waves, so a small selection has fewer waves than the spec. Within the plan, nodes go
// round-robin over racks (site/rack in name order) and, within a rack, round-robin over the
// failure domains the caps name (caps.per_label values), nodes in id order within a domain.
std::vector<Wave> planWaves(const CampaignSpec& spec, std::vector<PlanNode> nodes);

// What is running now. per_rack is keyed by PlanNode::rack, per_label by label key then value.
struct InFlight {
  int global = 0;
  std::map<std::string, int> per_rack;
  std::map<std::string, std::map<std::string, int>> per_label;  // key -> value -> count
};

struct Admission {
  bool admitted = false;
  std::string blocked_by;  // "global", "per_rack:r01", "label:pdu=p3"
};
// Whether one more node may start: checks global, then the node's rack, then each capped label
// the node carries (a node without the label is in no such domain). A cap of 0 is unlimited.
Admission admit(const Caps& caps, const InFlight& in_flight, const PlanNode& node);
// Counts `node` as running (global, its rack, every label it carries).
void addInFlight(InFlight& in_flight, const PlanNode& node);

// Greedy in the candidates' order: each admitted node counts against the caps of the next.
std::vector<std::int64_t> pickAdmissible(const Caps& caps, InFlight in_flight,
                                         const std::vector<PlanNode>& candidates);

// The least time the plan can take when every node takes per_node_seconds and waves run one after
// the other with a bake between them:
//   sum over waves w of  rounds(w) * per_node_seconds  +  (waves - 1) * bake_seconds
//   rounds(w) = max(1, ceil(|w| / global),
//                   max over racks r   ceil(|w in r| / per_rack),
//                   max over capped label key k and value v   ceil(|w with k=v| / per_label[k]))
// (a cap of 0 is unlimited and left out). No bake after the last wave.
double makespanLowerBound(const std::vector<Wave>& plan, const Caps& caps, double per_node_seconds,
                          double bake_seconds);

}  // namespace workflows::campaign

#include <map>
#include <set>
#include <span>

#include "inventory/health/idle_gpu.hpp"
#include "inventory/health/learned_normal.hpp"
#include "workflows/health_flags.hpp"

namespace workflows {

namespace h = inventory::health;

namespace {

// The GPUs evaluated, by the node each is in now: the learned-normal and idle-GPU rules compare
// a GPU with its node-mates.
std::vector<h::NodeHistory> nodesOf(const inventory::FlagEvaluationInput& input) {
  std::map<inventory::Id, h::NodeHistory> by_node;
  for (std::size_t i = 0; i < input.gpus.size() && i < input.nodes.size(); ++i) {
    const auto& [serial, node_id] = input.nodes[i];
    auto& node = by_node[node_id];
    node.label = "node " + std::to_string(node_id);
    node.gpus.push_back({serial, std::span<const h::DayAggregate>(input.gpus[i].days)});
  }
  std::vector<h::NodeHistory> out;
  for (auto& [id, node] : by_node) out.push_back(std::move(node));
  return out;
}

}  // namespace

common::Result<FlagEvaluation> evaluateHealthFlags(inventory::Database& db, const h::Policy& policy,
                                                   h::Seconds since, h::Seconds now) {
  PROV_ASSIGN(auto input, inventory::loadFlagEvaluationInput(db, since, now));
  FlagEvaluation out;
  out.gpus = static_cast<int>(input.gpus.size());
  std::vector<h::FlagDraft> drafts;
  std::set<std::string> evaluated;
  for (const auto& e : input.gpus) {
    evaluated.insert(e.serial);
    for (auto& d : h::evaluateGpu(policy, e)) drafts.push_back(std::move(d));
  }
  // Peer rules flag only the GPUs with new data (the others are evaluated when they report).
  for (const auto& g : input.peer_groups) {
    for (auto& d : h::evaluatePeerGroup(policy, g)) {
      if (evaluated.contains(d.serial)) drafts.push_back(std::move(d));
    }
  }
  for (const auto& node : nodesOf(input)) {
    for (auto& d : h::evaluateLearnedNormal(policy, node)) drafts.push_back(std::move(d));
    for (auto& d : h::evaluateIdleGpus(policy, node)) drafts.push_back(std::move(d));
  }
  out.drafts = static_cast<int>(drafts.size());
  if (!drafts.empty()) {
    PROV_ASSIGN(out.raised, inventory::raiseFlags(db, drafts, now));
  }
  return out;
}

}  // namespace workflows

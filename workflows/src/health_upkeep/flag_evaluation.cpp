#include <set>

#include "workflows/health_flags.hpp"

namespace workflows {

namespace h = inventory::health;

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
  out.drafts = static_cast<int>(drafts.size());
  if (!drafts.empty()) {
    PROV_ASSIGN(out.raised, inventory::raiseFlags(db, drafts, now));
  }
  return out;
}

}  // namespace workflows

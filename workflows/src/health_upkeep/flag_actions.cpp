// Health flag -> action: which flags need which action now (pure), and the upkeep's pass that
// starts a drain run per flag that needs one.
#include <map>

#include "inventory/nodes.hpp"
#include "inventory/resident_tasks.hpp"
#include "workflows/health_actions.hpp"

namespace workflows {

std::string flagDrainSubject(inventory::Id flag_id) {
  return "gpu_flag:" + std::to_string(flag_id);
}

bool actionDrainsNode(const std::string& action) {
  return action == "drain" || action == "rma_candidate" || action == "reset_at_idle" ||
         action == "rerun_burn_in";
}

FlagActionPlan planFlagAction(const inventory::GpuFlag& flag, const std::string& node_state,
                              bool burned_in_lately) {
  if (flag.state != "open" || !flag.action_at.empty()) return FlagActionPlan::kNone;
  if (!actionDrainsNode(flag.action)) return FlagActionPlan::kNone;
  if (!flag.node_id) return FlagActionPlan::kNoNode;
  if (inventory::isLeavingFleet(node_state)) return FlagActionPlan::kNodeOut;
  if (flag.action == "reset_at_idle") return FlagActionPlan::kResetAtIdle;
  if (flag.action == "rerun_burn_in") {
    return burned_in_lately ? FlagActionPlan::kBurnedInLately : FlagActionPlan::kRerunBurnIn;
  }
  return FlagActionPlan::kDrain;
}

ResidentTaskDecision decideResidentTask(const inventory::ResidentTask& task, TimePoint now,
                                        TimePoint deadline) {
  if (task.state == "succeeded") return ResidentTaskDecision::kCheck;
  if (task.state == "failed") return ResidentTaskDecision::kFailed;
  if (task.state == "cancelled") return ResidentTaskDecision::kCancelled;
  return now >= deadline ? ResidentTaskDecision::kTimedOut : ResidentTaskDecision::kWait;
}

ResetCheckDecision decideResetCheck(const inventory::GpuRemapState& gpu,
                                    inventory::health::Seconds reset_at, TimePoint now,
                                    TimePoint deadline) {
  if (gpu.last_sample && *gpu.last_sample >= reset_at) {
    return gpu.remap_pending ? ResetCheckDecision::kStillPending : ResetCheckDecision::kCleared;
  }
  return now >= deadline ? ResetCheckDecision::kTimedOut : ResetCheckDecision::kWaitForReading;
}

FlagDrainDecision decideFlagDrain(const inventory::GpuFlag& flag, inventory::Id run_id) {
  if (flag.state != "open") return FlagDrainDecision::kOperatorDecided;
  if (flag.action_run_id && *flag.action_run_id == run_id) return FlagDrainDecision::kDrain;
  return FlagDrainDecision::kOtherRun;
}

FlagReleaseDecision decideFlagRelease(const inventory::GpuFlag& flag,
                                      const std::vector<inventory::Id>& holding,
                                      const std::string& node_state) {
  if (flag.state != "cleared" || flag.action_at.empty() || !flag.released_at.empty()) {
    return FlagReleaseDecision::kNothing;
  }
  if (!actionDrainsNode(flag.action)) return FlagReleaseDecision::kNothing;
  if (inventory::isLeavingFleet(node_state)) return FlagReleaseDecision::kNodeOut;
  if (!holding.empty()) return FlagReleaseDecision::kStillHeld;
  return FlagReleaseDecision::kUndrain;
}

std::string flagDrainReason(const inventory::GpuFlag& flag) {
  return "drained: flag " + flag.rule + " on GPU " + flag.serial + ": " + flag.reason;
}

namespace {

// A flag's drain or release run (the flag names its node).
StartRequest flagRun(const char* kind, const inventory::GpuFlag& flag) {
  StartRequest request;
  request.kind = kind;
  request.subject = flagDrainSubject(flag.id);
  request.context = {{"flag_id", flag.id}, {"node_id", *flag.node_id}};
  request.node_id = flag.node_id;
  request.actor = "service";
  return request;
}

const char* runKindOf(FlagActionPlan plan) {
  if (plan == FlagActionPlan::kResetAtIdle) return kGpuFlagReset;
  if (plan == FlagActionPlan::kRerunBurnIn) return kGpuFlagBurnIn;
  return kGpuFlagDrain;
}

common::Result<int> startFlagReleases(inventory::Database& db, const StartRunFn& start) {
  PROV_ASSIGN(auto flags, inventory::listFlagsToRelease(db));
  for (const auto& flag : flags) PROV_TRY(start(flagRun(kGpuFlagRelease, flag)));
  return static_cast<int>(flags.size());
}

// What the plan needs to know of a flag's node, read once a pass.
struct NodeFacts {
  std::string state;
  bool burned_in_lately = false;
};

common::Result<NodeFacts> nodeFacts(inventory::Database& db, inventory::Id node_id, TimePoint now,
                                    Duration burn_in_cooldown) {
  NodeFacts facts;
  PROV_ASSIGN(auto node, inventory::getNode(db, node_id));
  facts.state = node.state;
  PROV_ASSIGN(auto last, inventory::lastJudgedBurnIn(db, node_id));
  facts.burned_in_lately = last && now - *last < burn_in_cooldown;
  return facts;
}

}  // namespace

common::Result<FlagActionPass> startFlagActions(inventory::Database& db, const StartRunFn& start,
                                                TimePoint now, Duration burn_in_cooldown) {
  FlagActionPass pass;
  std::map<inventory::Id, NodeFacts> nodes;
  inventory::FlagFilter filter;
  filter.state = "open";
  filter.page.limit = 1000;
  for (;;) {
    PROV_ASSIGN(auto flags, inventory::listFlags(db, filter));
    for (const auto& flag : flags) {
      NodeFacts node;
      if (flag.node_id) {
        auto known = nodes.find(*flag.node_id);
        if (known == nodes.end()) {
          PROV_ASSIGN(auto facts, nodeFacts(db, *flag.node_id, now, burn_in_cooldown));
          known = nodes.emplace(*flag.node_id, std::move(facts)).first;
        }
        node = known->second;
      }
      const FlagActionPlan plan = planFlagAction(flag, node.state, node.burned_in_lately);
      switch (plan) {
        case FlagActionPlan::kDrain:
        case FlagActionPlan::kResetAtIdle:
        case FlagActionPlan::kRerunBurnIn:
          PROV_TRY(start(flagRun(runKindOf(plan), flag)));
          ++pass.started;
          break;
        case FlagActionPlan::kBurnedInLately:
          ++pass.waiting_operator;
          break;
        case FlagActionPlan::kNoNode:
        case FlagActionPlan::kNodeOut:
          ++pass.skipped;
          break;
        case FlagActionPlan::kNone:
          break;
      }
    }
    if (static_cast<int>(flags.size()) < filter.page.limit) break;
    filter.page.after = flags.back().id;
  }
  PROV_ASSIGN(pass.releases, startFlagReleases(db, start));
  return pass;
}

}  // namespace workflows

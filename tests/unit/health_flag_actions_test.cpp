// Health flag -> action, the pure decisions (workflows/health_actions.hpp): which flags get a
// drain run now, given the flag's state and action and the node's state; what a drain run does
// once it has tried to record the action; the reason the scheduler and timeline get.
#include <catch2/catch.hpp>

#include "workflows/health_actions.hpp"

using workflows::decideFlagDrain;
using workflows::FlagActionPlan;
using workflows::FlagDrainDecision;
using workflows::planFlagAction;

namespace {

inventory::GpuFlag openFlag(const std::string& action) {
  inventory::GpuFlag f;
  f.id = 7;
  f.serial = "GPU-1";
  f.rule = "nvidia.xid48_dbe";
  f.action = action;
  f.state = "open";
  f.reason = "XID 48 (double-bit ECC error)";
  f.node_id = 3;
  return f;
}

}  // namespace

TEST_CASE("open drain and rma_candidate flags on a node in service get a drain run",
          "[health][flags][actions]") {
  CHECK(planFlagAction(openFlag("drain"), "ready") == FlagActionPlan::kDrain);
  CHECK(planFlagAction(openFlag("rma_candidate"), "ready") == FlagActionPlan::kDrain);
  CHECK(planFlagAction(openFlag("drain"), "burn_in") == FlagActionPlan::kDrain);
  CHECK(planFlagAction(openFlag("drain"), "") == FlagActionPlan::kDrain);
}

TEST_CASE("an operator's acknowledgement or clearing, or a started action, means no drain",
          "[health][flags][actions]") {
  auto acked = openFlag("drain");
  acked.state = "acknowledged";
  CHECK(planFlagAction(acked, "ready") == FlagActionPlan::kNone);
  auto cleared = openFlag("rma_candidate");
  cleared.state = "cleared";
  CHECK(planFlagAction(cleared, "ready") == FlagActionPlan::kNone);
  auto started = openFlag("drain");
  started.action_at = "2026-12-04T21:00:00Z";
  started.action_run_id = 12;
  CHECK(planFlagAction(started, "ready") == FlagActionPlan::kNone);
}

TEST_CASE("watch needs nothing; reset_at_idle and rerun_burn_in stay pending for an operator",
          "[health][flags][actions]") {
  CHECK(planFlagAction(openFlag("watch"), "ready") == FlagActionPlan::kNone);
  CHECK(planFlagAction(openFlag("reset_at_idle"), "ready") == FlagActionPlan::kPendingManual);
  CHECK(planFlagAction(openFlag("rerun_burn_in"), "ready") == FlagActionPlan::kPendingManual);
  auto acked = openFlag("reset_at_idle");
  acked.state = "acknowledged";
  CHECK(planFlagAction(acked, "ready") == FlagActionPlan::kNone);
}

TEST_CASE("no drain without a node, nor of a node already out of service",
          "[health][flags][actions]") {
  auto nowhere = openFlag("drain");
  nowhere.node_id.reset();
  CHECK(planFlagAction(nowhere, "") == FlagActionPlan::kNoNode);
  CHECK(planFlagAction(openFlag("drain"), "decommissioning") == FlagActionPlan::kNodeOut);
  CHECK(planFlagAction(openFlag("rma_candidate"), "decommission_failed") ==
        FlagActionPlan::kNodeOut);
  CHECK(planFlagAction(openFlag("drain"), "retired") == FlagActionPlan::kNodeOut);
}

TEST_CASE("a drain run tells the scheduler only when the open flag's action is its own",
          "[health][flags][actions]") {
  auto mine = openFlag("drain");
  mine.action_at = "2026-12-04T21:00:00Z";
  mine.action_run_id = 12;
  CHECK(decideFlagDrain(mine, 12) == FlagDrainDecision::kDrain);
  CHECK(decideFlagDrain(mine, 13) == FlagDrainDecision::kOtherRun);
  auto unmarked = openFlag("drain");  // the mark did not take (it raced): not this run's
  CHECK(decideFlagDrain(unmarked, 12) == FlagDrainDecision::kOtherRun);
  auto acked = mine;
  acked.state = "acknowledged";  // acknowledged after the mark, before (or between) requests
  CHECK(decideFlagDrain(acked, 12) == FlagDrainDecision::kOperatorDecided);
  auto cleared = openFlag("drain");
  cleared.state = "cleared";
  CHECK(decideFlagDrain(cleared, 12) == FlagDrainDecision::kOperatorDecided);
}

TEST_CASE("the drain reason names the rule, the GPU and the flag's reason",
          "[health][flags][actions]") {
  CHECK(workflows::flagDrainReason(openFlag("drain")) ==
        "drained: flag nvidia.xid48_dbe on GPU GPU-1: XID 48 (double-bit ECC error)");
  CHECK(workflows::flagDrainSubject(7) == "gpu_flag:7");
}

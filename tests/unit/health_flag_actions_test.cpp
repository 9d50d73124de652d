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

TEST_CASE("watch needs nothing; reset_at_idle gets a reset run; rerun_burn_in a burn-in run",
          "[health][flags][actions]") {
  CHECK(planFlagAction(openFlag("watch"), "ready") == FlagActionPlan::kNone);
  CHECK(planFlagAction(openFlag("reset_at_idle"), "ready") == FlagActionPlan::kResetAtIdle);
  CHECK(planFlagAction(openFlag("rerun_burn_in"), "ready") == FlagActionPlan::kRerunBurnIn);
  CHECK(planFlagAction(openFlag("rerun_burn_in"), "decommissioning") == FlagActionPlan::kNodeOut);
  // A node burned in lately: the flag waits for an operator; other actions go on regardless.
  CHECK(planFlagAction(openFlag("rerun_burn_in"), "ready", true) ==
        FlagActionPlan::kBurnedInLately);
  CHECK(planFlagAction(openFlag("reset_at_idle"), "ready", true) == FlagActionPlan::kResetAtIdle);
  CHECK(planFlagAction(openFlag("rma_candidate"), "ready", true) == FlagActionPlan::kDrain);
  auto acked = openFlag("reset_at_idle");
  acked.state = "acknowledged";
  CHECK(planFlagAction(acked, "ready") == FlagActionPlan::kNone);
  auto nowhere = openFlag("reset_at_idle");
  nowhere.node_id.reset();
  CHECK(planFlagAction(nowhere, "ready") == FlagActionPlan::kNoNode);
  CHECK(planFlagAction(openFlag("reset_at_idle"), "retired") == FlagActionPlan::kNodeOut);
  CHECK(workflows::actionDrainsNode("reset_at_idle"));
  CHECK(workflows::actionDrainsNode("rerun_burn_in"));
  CHECK_FALSE(workflows::actionDrainsNode("watch"));
}

TEST_CASE("the reset run waits for its task's outcome until the deadline",
          "[health][flags][actions][reset]") {
  using workflows::decideResidentTask;
  using workflows::ResidentTaskDecision;
  const workflows::TimePoint now{std::chrono::hours(1000)};
  const auto deadline = now + std::chrono::minutes(5);
  inventory::ResidentTask task;
  for (const char* open : {"pending", "delivered"}) {
    task.state = open;
    CHECK(decideResidentTask(task, now, deadline) == ResidentTaskDecision::kWait);
    CHECK(decideResidentTask(task, deadline, deadline) == ResidentTaskDecision::kTimedOut);
  }
  task.state = "succeeded";
  CHECK(decideResidentTask(task, deadline + std::chrono::hours(1), deadline) ==
        ResidentTaskDecision::kCheck);  // an outcome counts however late the run looks
  task.state = "failed";
  CHECK(decideResidentTask(task, now, deadline) == ResidentTaskDecision::kFailed);
  task.state = "cancelled";
  CHECK(decideResidentTask(task, now, deadline) == ResidentTaskDecision::kCancelled);
}

TEST_CASE("only a reading sampled at or after the reset decides whether it applied the remap",
          "[health][flags][actions][reset]") {
  using workflows::decideResetCheck;
  using workflows::ResetCheckDecision;
  const inventory::health::Seconds reset_at{std::chrono::seconds(3600000)};
  const workflows::TimePoint now{std::chrono::hours(1000)};
  const auto deadline = now + std::chrono::minutes(5);
  inventory::GpuRemapState gpu;
  CHECK(decideResetCheck(gpu, reset_at, now, deadline) == ResetCheckDecision::kWaitForReading);
  gpu.last_sample = reset_at - std::chrono::seconds(1);  // before the reset: still pending
  gpu.remap_pending = true;
  CHECK(decideResetCheck(gpu, reset_at, now, deadline) == ResetCheckDecision::kWaitForReading);
  CHECK(decideResetCheck(gpu, reset_at, deadline, deadline) == ResetCheckDecision::kTimedOut);
  gpu.last_sample = reset_at;
  CHECK(decideResetCheck(gpu, reset_at, now, deadline) == ResetCheckDecision::kStillPending);
  gpu.remap_pending = false;
  CHECK(decideResetCheck(gpu, reset_at, now, deadline) == ResetCheckDecision::kCleared);
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

TEST_CASE("a cleared flag whose action drained the node gives it back unless held or leaving",
          "[health][flags][actions]") {
  using workflows::decideFlagRelease;
  using workflows::FlagReleaseDecision;
  for (const char* action : {"drain", "rma_candidate", "reset_at_idle", "rerun_burn_in"}) {
    auto flag = openFlag(action);
    flag.state = "cleared";
    flag.action_at = "2026-12-04T21:00:00Z";
    CHECK(decideFlagRelease(flag, {}, "ready") == FlagReleaseDecision::kUndrain);
    CHECK(decideFlagRelease(flag, {9}, "ready") == FlagReleaseDecision::kStillHeld);
    CHECK(decideFlagRelease(flag, {}, "retired") == FlagReleaseDecision::kNodeOut);
    flag.released_at = "2026-12-04T22:00:00Z";
    CHECK(decideFlagRelease(flag, {}, "ready") == FlagReleaseDecision::kNothing);
  }
  auto never_drained = openFlag("reset_at_idle");
  never_drained.state = "cleared";
  CHECK(decideFlagRelease(never_drained, {}, "ready") == FlagReleaseDecision::kNothing);
  auto watched = openFlag("watch");
  watched.state = "cleared";
  watched.action_at = "2026-12-04T21:00:00Z";
  CHECK(decideFlagRelease(watched, {}, "ready") == FlagReleaseDecision::kNothing);
}

TEST_CASE("a failed burn-in rerun flags each GPU its verdict names, once, as an RMA candidate",
          "[health][flags][actions][burn_in]") {
  const auto verdict = nlohmann::json::parse(R"json({"passed": false, "failures": [
      {"gpu_serial": "GPU-3", "check": "compute", "reason": "below_threshold", "value": 401.5,
       "message": "GPU GPU-3 compute 401.5 TFLOP/s is below 90% of nominal 989"},
      {"gpu_serial": "GPU-3", "check": "ecc", "reason": "ecc_corrected_excess", "value": 700,
       "message": "GPU GPU-3 had 700 corrected ECC errors during burn-in (limit 100)"},
      {"gpu_serial": "GPU-5", "check": "thermal", "reason": "thermal", "value": 92,
       "message": "GPU GPU-5 reached 92 C"},
      {"gpu_serial": "", "check": "agent", "reason": "agent_error", "value": null,
       "message": "the agent could not run the task: no GPUs found"}]})json");
  const inventory::health::Seconds at{std::chrono::seconds{1800000000}};
  const auto drafts = workflows::burnInFailureFlags(verdict, 12, 40, at);
  REQUIRE(drafts.size() == 2);
  CHECK(drafts[0].serial == "GPU-3");
  CHECK(drafts[0].rule == "burn_in.rerun_failed");
  CHECK(drafts[0].action == inventory::health::FlagAction::kRmaCandidate);
  CHECK(drafts[0].severity == inventory::health::FlagSeverity::kCritical);
  CHECK(drafts[0].node_id == 12);
  CHECK(drafts[0].raised_at == at);
  CHECK(drafts[0].reason ==
        "failed the burn-in rerun (resident task 40): GPU GPU-3 compute 401.5 TFLOP/s is below "
        "90% of nominal 989");
  const auto evidence = nlohmann::json::parse(drafts[0].evidence_json);
  CHECK(evidence["check"] == "compute");
  CHECK(evidence["task_id"] == 40);
  CHECK(drafts[1].serial == "GPU-5");
  // A passed verdict, or none, flags nothing.
  CHECK(workflows::burnInFailureFlags(nlohmann::json::parse(R"({"passed": true, "failures": []})"),
                                      12, 40, at)
            .empty());
  CHECK(workflows::burnInFailureFlags(nlohmann::json(), 12, 40, at).empty());
}

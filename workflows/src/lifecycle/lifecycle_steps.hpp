// Inside the node lifecycle: what every step shares, and one function per step. The workflow
// definition (lifecycle_workflow.cpp) strings them together. Steps read the world again on every
// run; whatever they must remember between runs goes in ctx.data() under the keys below.
#pragma once

#include <memory>
#include <string>

#include "common/result.hpp"
#include "redfish/client.hpp"
#include "workflows/lifecycle.hpp"
#include "workflows/step.hpp"

namespace workflows::lifecycle {

// Keys of the run context (ctx.data()):
//   "discovery_id", "bmc_address", "bmc_mac"     set by the trigger
//   "base_url"        "https://<address>" (or what the discovery said)
//   "node_id"         set by match (also attached to the run)
//   "system_path", "chassis_path"                set by inspect
//   "expected"        {"po", "serial", "model", "gpu_count"} from the purchase order, by match
//   "profile"         hardware profile name, by inspect
//   "claim"           claim progress, "bios" / "firmware" / "imaging" the same for theirs
//   "failure"         set by the engine before the quarantine step
struct Env {
  LifecycleDeps deps;
  LifecycleSettings settings;

  TimePoint after(TimePoint now, Duration real_world) const {
    return now + settings.timings.scaled(real_world);
  }
  // A Redfish client for this run's BMC with the credentials that currently work: the node's
  // claimed secret once claimed, else the purchase order's factory credentials, else the
  // configured default. TLS pinned to the recorded fingerprint when there is one.
  common::Result<std::shared_ptr<redfish::Client>> bmc(const StepContext& ctx) const;
};

// match: identity from the BMC against the purchase order; creates the node.
StepOutcome matchStep(const Env& env, StepContext& ctx);
// admit: takes a rack slot and a site slot (caps), else waits for one.
StepOutcome admitStep(const Env& env, StepContext& ctx);
// claim: factory password replaced by a generated per-node secret (intent first), events
// subscription.
StepOutcome claimStep(const Env& env, StepContext& ctx);
// inspect: full crawl into the inventory; GPU count/model and PCIe links checked.
StepOutcome inspectStep(const Env& env, StepContext& ctx);
// configure: profile BIOS settings, validated, only the difference applied, reset, verified.
StepOutcome configureStep(const Env& env, StepContext& ctx);
// firmware: components below the profile's minimum updated (intent first) and verified.
StepOutcome firmwareStep(const Env& env, StepContext& ctx);
// imaging: burn-in task created, one-time network boot set, host reset.
StepOutcome imagingStep(const Env& env, StepContext& ctx);
// burn_in: waits for the agent's result; a time-out re-arms the boot once, then quarantines.
StepOutcome burnInStep(const Env& env, StepContext& ctx);
// handoff: node ready; the scheduler's webhook told.
StepOutcome handoffStep(const Env& env, StepContext& ctx);
// quarantine: node quarantined with data()["failure"] as its reason and evidence.
StepOutcome quarantineStep(const Env& env, StepContext& ctx);

// Sets the node's lifecycle state (with a timeline event) when the run has a node.
void enterState(const Env& env, StepContext& ctx, const std::string& state,
                const std::string& reason = {});

}  // namespace workflows::lifecycle

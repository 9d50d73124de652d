// The node decommission workflow: a node leaves a tenant, goes back under RMA, is redeployed or
// goes to e-waste, and ends `retired` (or back in discovery for `redeploy`) only with a signed
// sanitization certificate in which every device passed; otherwise `decommission_failed`.
//
//   drain -> wipe_boot -> wipe_result -> drives -> platform_reset -> certify
//   (any failure -> fail_decommission: nothing signed, the failed device named)
//
// Run subject: decommissionSubject(id). Run context: {"decommission_id": N} plus what the steps
// learn. The run is started by POST /api/v1/nodes/{id}/decommission after
// inventory::createDecommission, with StartRequest::node_id set.
#pragma once

#include <memory>
#include <string>

#include "images/signing.hpp"
#include "inventory/types.hpp"
#include "workflows/lifecycle.hpp"
#include "workflows/rollout.hpp"
#include "workflows/step.hpp"

namespace workflows {

inline constexpr const char* kNodeDecommission = "node_decommission";

std::string decommissionSubject(inventory::Id decommission_id);  // "decommission:<id>"

struct DecommissionSettings {
  std::string wipe_channel = "wipe";  // the image catalog channel the node boots to be wiped
  double min_gpu_coverage = 0.95;     // a GPU passes only when this much of its memory was wiped
  double drive_sample_coverage = 0.01;  // fraction of each drive read back after the erase
  Duration wipe_timeout{14400000};      // a network boot until the agent's wipe report
  Duration drive_erase_timeout{7200000};  // one out-of-band Drive.SecureErase task
  bool reset_manager = false;  // Manager.ResetToDefaults at the end (when the profile asks)
  std::shared_ptr<const images::KeyPair> signing_key;  // the certificate key (never null)
};

WorkflowDef nodeDecommissionWorkflow(LifecycleDeps deps, LifecycleSettings lifecycle,
                                     RolloutSettings rollout, DecommissionSettings settings);

}  // namespace workflows

// Firmware rollouts as durable workflows: one controller run per campaign ("firmware_campaign")
// that admits nodes wave by wave under the campaign's caps and windows and applies its gates,
// and one run per node ("node_firmware_update") that drains it, flashes each component with
// its intent recorded first, verifies the version by re-reading FirmwareInventory, runs a quick
// health check through the agent, and undrains it, rolling it back when it fails. Campaigns of
// kind image start "node_image_update" runs instead: drain, network-boot the campaign's image
// version with the quick check, undrain; a node that does not come up on it is booted back into
// its previous image. A completed image campaign promotes its channel.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "common/result.hpp"
#include "workflows/engine.hpp"
#include "workflows/lifecycle.hpp"

namespace images {
class ArtifactStore;
}  // namespace images

namespace workflows {

inline constexpr const char* kFirmwareCampaign = "firmware_campaign";
inline constexpr const char* kNodeFirmwareUpdate = "node_firmware_update";
inline constexpr const char* kNodeImageUpdate = "node_image_update";

// Real-world durations, divided by the lifecycle's time scale like the lifecycle's own.
struct RolloutTimings {
  Duration drain_timeout{1800000};        // the scheduler says the node is idle within this
  Duration verify_grace{600000};          // after apply, the new version shows within this
  Duration bmc_return_timeout{1200000};   // a BMC that restarts after its own update is back
  Duration power_off_settle{30000};       // AC/aux power cycle: off this long before on
  Duration quick_check_timeout{1800000};  // a boot until the quick check's result
  Duration controller_poll{30000};        // the controller looks again at least this often
  int quick_check_seconds = 60;           // each burn-in test of the quick check runs this long
  // A node's resident agent reports a task's outcome (a GPU reset), and then a reading, within
  // this.
  Duration resident_task_timeout{900000};
};

// How the scheduler is told to drain and resume a node (the lifecycle's hand-off URL names where
// ready nodes go; this names where nodes leave from and come back). Empty url: no scheduler,
// the node counts as idle at once.
struct DrainHook {
  std::string url;                 // POST {"action": "drain"|"resume", "node": {...}}
  std::string format = "generic";  // generic | slurm | kubernetes
  std::string token;               // bearer token, never logged
};

struct RolloutSettings {
  RolloutTimings timings;
  DrainHook drain;
  // The content-addressed store a multipart_push package's file is streamed from (its digest
  // checked before each push). Null: such packages fail multipart_push_unavailable.
  std::shared_ptr<images::ArtifactStore> artifacts;
};

// What the controller needs of the engine: starting the node runs (a weak handle to the engine
// that runs them, set when the workflows are registered).
using StartRun = std::function<common::Result<StartResult>(const StartRequest&)>;

WorkflowDef nodeFirmwareUpdateWorkflow(LifecycleDeps deps, LifecycleSettings lifecycle,
                                       RolloutSettings settings);
WorkflowDef nodeImageUpdateWorkflow(LifecycleDeps deps, LifecycleSettings lifecycle,
                                    RolloutSettings settings);
WorkflowDef firmwareCampaignWorkflow(LifecycleDeps deps, LifecycleSettings lifecycle,
                                     RolloutSettings settings, StartRun start_run);

// Registers all three on `engine` (the controller starts node runs through the same engine).
void registerRolloutWorkflows(Engine& engine, LifecycleDeps deps, LifecycleSettings lifecycle,
                              RolloutSettings settings);

// Run subjects.
std::string campaignSubject(std::int64_t campaign_id);
std::string nodeUpdateSubject(std::int64_t campaign_id, std::int64_t node_id);

}  // namespace workflows

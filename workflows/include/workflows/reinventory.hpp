// Keeping the firmware inventory true: a durable run ("firmware_reinventory", subject "fleet")
// re-reads the FirmwareInventory of in-service nodes whose last read is older than the interval,
// at most `per_minute` nodes a minute across the fleet (the transport's per-BMC limit bounds
// what one BMC sees), and records what each BMC reports, or that it could not be reached, so
// compliance never reports a stale "compliant".
#pragma once

#include "workflows/engine.hpp"
#include "workflows/lifecycle.hpp"

namespace workflows {

inline constexpr const char* kFirmwareReinventory = "firmware_reinventory";

struct ReinventoryOptions {
  Duration interval{6 * 3600 * 1000};  // a node is read again when its last read is this old
  int per_minute = 120;                // most nodes read a minute, fleet-wide
  Duration tick{30000};                // how often the run looks for due nodes
  Duration retry_unreachable{900000};  // an unreachable node is tried again after this
  std::size_t concurrency = 8;         // BMCs read at once
  std::vector<std::string> states = {"ready"};  // nodes in these states are read
};

WorkflowDef firmwareReinventoryWorkflow(LifecycleDeps deps, LifecycleSettings lifecycle,
                                        ReinventoryOptions options);

// Starts the fleet's run when none is open (every replica may call it; one run results).
common::Result<void> ensureReinventoryRun(Engine& engine);

}  // namespace workflows

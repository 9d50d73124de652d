// A fleet-wide periodic run: one workflow of one step that does a pass and waits for the next
// (the firmware re-inventory, the health upkeep, the out-of-band health sweep). Every replica
// asks for it at start-up; the open run of a kind and subject is one run, so one results.
#pragma once

#include <functional>
#include <string>

#include "common/result.hpp"
#include "workflows/engine.hpp"
#include "workflows/step.hpp"

namespace workflows {

// `kind` with the single step `step_name`, retried up to 30 times with back-off from
// `backoff_base` doubling up to `backoff_cap` (a database outage must not end the fleet's run).
WorkflowDef fleetRunWorkflow(const std::string& kind, const std::string& step_name,
                             std::function<StepOutcome(StepContext&)> pass, Duration backoff_base,
                             Duration backoff_cap);

// Starts the run of `kind` for subject "fleet" unless one is open.
common::Result<void> ensureFleetRun(Engine& engine, const std::string& kind);

}  // namespace workflows

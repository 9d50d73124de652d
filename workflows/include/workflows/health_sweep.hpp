// The out-of-band health sweep (docs/health.md, "The out-of-band sweep"): one durable run for the
// fleet ("gpu_health_sweep", subject "fleet") that, every tick, reads through the BMC the health
// of in-service nodes whose agent has been silent for more than `silent_intervals` monitor
// intervals, keeps what the BMC says in the GPU health history (as the BMC's readings), raises a
// flag with the BMC's words for a degraded GPU or power supply, and flags a GPU whose readings
// stopped while the other GPUs of its node still report.
//
// Rate caps: at most `per_minute` BMCs a minute fleet-wide and `concurrency` at once; one BMC is
// read at most once per `bmc_min_interval`, one request at a time (whatever the transport's
// per-BMC limit allows other work).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "inventory/health/flag.hpp"
#include "inventory/health/sample.hpp"
#include "inventory/health_sweep.hpp"
#include "redfish/bmc_health.hpp"
#include "workflows/clock.hpp"
#include "workflows/engine.hpp"
#include "workflows/lifecycle.hpp"

namespace workflows {

inline constexpr const char* kGpuHealthSweep = "gpu_health_sweep";

struct HealthSweepOptions {
  Duration agent_interval{30000};  // the resident monitor's interval
  int silent_intervals = 3;        // a node (a GPU) is silent after this many without a reading
  Duration tick{60000};            // how often the run looks for silent nodes
  int per_minute = 60;             // BMCs read a minute, fleet-wide
  std::size_t concurrency = 4;     // BMCs read at once
  // The caps and the tick are real time, never scaled by the lifecycle's time scale (a demo at
  // 120x must not read a BMC 120 times as often); only the silence is scaled.
  Duration bmc_min_interval{300000};   // one BMC is read at most this often
  Duration retry_unreachable{900000};  // a BMC that could not be read is tried again after this
  std::vector<std::string> states = {"ready"};  // nodes in these states are in service
  // The health history's "now" (a silence, the readings' time, the per-BMC intervals); null: the
  // engine's clock, the silence then scaled by the lifecycle's time scale. Sped up only for
  // simulated fleets, whose monitors then send every `agent_interval` on this clock; the tick
  // and the per-minute cap stay real.
  std::shared_ptr<Clock> health_clock;
};

WorkflowDef gpuHealthSweepWorkflow(LifecycleDeps deps, LifecycleSettings lifecycle,
                                   HealthSweepOptions options);

// Starts the fleet's run when none is open (every replica may call it; one run results).
common::Result<void> ensureHealthSweepRun(Engine& engine);

// The sweep's decisions, pure (tests/unit/health_sweep_test.cpp).
namespace health_sweep {

struct SweepPolicy {
  Duration silence;            // no agent reading for this long: silent
  Duration bmc_min_interval;   // a BMC read this recently is not read again
  Duration retry_unreachable;  // a BMC that failed this recently is not tried again
};

// Silent nodes whose BMC is due, the longest silent first (never-reporting ones first of all),
// at most `budget`.
std::vector<std::int64_t> silentNodesDue(const std::vector<inventory::HealthSweepNode>& nodes,
                                         TimePoint now, const SweepPolicy& policy,
                                         std::size_t budget);

// The BMC's readings as a batch at `now`: each GPU with a serial once (the first the BMC lists).
inventory::health::NodeBatch bmcReadings(const redfish::BmcNodeHealth& health, TimePoint now);

// Flags from what the BMC says (rules bmc.gpu_health, bmc.gpu_off_bus, bmc.remap_failure,
// bmc.psu_health), each with the BMC's words; `evidence_at` is when the node fell silent (its
// last agent reading), so a flag an operator cleared stays cleared for this silent spell.
std::vector<inventory::health::FlagDraft> bmcFindings(std::int64_t node_id,
                                                      const redfish::BmcNodeHealth& health,
                                                      TimePoint evidence_at);

// GPUs that reported from their node before and have been silent for `silence` while another
// GPU of the node reported within it (rule silent.gpu).
std::vector<inventory::health::FlagDraft> silentGpuFindings(
    const std::vector<inventory::PlacedGpuReading>& gpus, TimePoint now, Duration silence);

}  // namespace health_sweep
}  // namespace workflows

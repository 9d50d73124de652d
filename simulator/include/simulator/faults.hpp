// Fault injection, per BMC or fleet-wide. Transport faults are applied by the network engine;
// behaviour faults by the BMC model. All rates are fractions of requests in [0, 1].
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "agent/sim_backend.hpp"
#include "common/result.hpp"

#include <nlohmann/json_fwd.hpp>

namespace sim {

struct LatencyModel {
  double medianMs = 0.0;    // per-request service time, log-normally distributed around it
  double sigma = 0.0;       // log-normal shape; 0 means every request takes exactly medianMs
  double slowFactor = 1.0;  // multiplies the latency of this BMC ("a slow BMC")
};

struct TransportFaults {
  double http5xxRate = 0.0;    // answered 503 (with Retry-After: 1) instead of the real answer
  double timeoutRate = 0.0;    // never answered (the connection is held until the client gives up)
  double resetRate = 0.0;      // connection closed without an answer
  double malformedRate = 0.0;  // the JSON body is cut in half
};

// What the BMC reports of one component's health: the n-th (from 1, in the BMC's order) GPU or
// power supply gets Status.Health `health` with a Condition carrying `message`.
struct ComponentHealthFault {
  int index = 1;
  std::string health = "Critical";  // "Warning" or "Critical"
  std::string message;
};

struct BehaviourFaults {
  bool hungTasks = false;          // tasks stay Running at their first percentage forever
  std::optional<int> maxSessions;  // overrides the profile's session limit
  bool sessionsExhausted = false;  // every login is refused as if all sessions were taken
  // Overrides the profile's idle session timeout (simulated seconds). At a high time scale the
  // profile's (DGX: 30 s) lasts a fraction of a real second, less than a loaded client's gap
  // between two requests: the chaos harness sets a longer one.
  std::optional<double> sessionTimeoutSeconds;
  bool vanishDuringFirmwareUpdate = false;   // the BMC stops answering once an update starts
  bool pcieDownTrained = false;              // GPU PCIe links trained at x8 instead of x16
  std::optional<std::string> chassisSerial;  // a serial that differs from the purchase order
  bool ignoreBootOverride = false;           // accepts the boot override, then boots from disk
  bool certificateRotated = false;           // presents a new self-signed certificate
  // Firmware updates (docs/simulator.md, "Firmware updates").
  bool firmwareTaskFails = false;         // update tasks end in Exception, nothing installed
  bool firmwareVersionUnchanged = false;  // tasks end Completed/OK but no version changes
  bool downgradeNeedsForce = false;       // a lower version is refused (400) without ForceUpdate
  double awayAfterUpdateMinutes = 0;      // unreachable this long (simulated) after an update
  double bmcRestartSeconds = 60;          // the BMC's restart after its own firmware (simulated)
  // Decommissioning (docs/simulator.md, "Faults").
  bool driveEraseFails = false;         // Drive.SecureErase tasks end in Exception (Critical)
  bool driveEraseHangs = false;         // Drive.SecureErase tasks stay Running forever
  bool secureEraseUnsupported = false;  // drives offer no #Drive.SecureErase; a POST is refused
  // Out-of-band health (docs/simulator.md, "Faults").
  std::optional<ComponentHealthFault> gpuHealth;  // a GPU's Status as the BMC words it
  std::optional<int> gpuOffBus;  // the n-th GPU's link shows 0 lanes while its Status says OK
  std::optional<ComponentHealthFault> psuHealth;  // a power supply's Status
};

// A firmware that makes the GPUs slower: while a FirmwareInventory member whose Id or Name
// contains `match` (case-insensitive) reports `version`, every GPU figure the host's agent
// measures (compute, HBM, PCIe and GPU-to-GPU bandwidth) is `percent` % lower.
struct FirmwareSlowdown {
  std::string match;
  std::string version;
  double percent = 0;
};

// Faults of the host's hardware, seen by the agent a network boot starts (not by the BMC).
struct HostFaults {
  std::vector<agent::SimFault> gpuFaults;  // the simulated GPU backend's faults, by GPU index
  std::vector<FirmwareSlowdown> firmwareSlowdowns;
};

struct Faults {
  LatencyModel latency;
  TransportFaults transport;
  BehaviourFaults behaviour;
  HostFaults host;
};

// JSON form used by fleet files and the control API, e.g.
// {"latency_ms": 50, "latency_sigma": 0.3, "slow_factor": 4, "http_5xx_rate": 0.1,
//  "timeout_rate": 0, "reset_rate": 0, "malformed_rate": 0, "hung_tasks": true,
//  "max_sessions": 2, "sessions_exhausted": false, "vanish_during_firmware_update": false,
//  "pcie_down_trained": true, "chassis_serial": "WRONG123", "ignore_boot_override": false,
//  "certificate_rotated": false,
//  "firmware_task_fails": false, "firmware_version_unchanged": false,
//  "downgrade_needs_force": true, "away_after_update_minutes": 10, "bmc_restart_seconds": 60,
//  "firmware_slowdown": {"match": "HGX_FW_GPU", "version": "24.10.1", "percent": 6},
//  "gpu_faults": [{"gpu": 3, "kind": "low_hbm_bandwidth", "factor": 0.8}],
//  "gpu_health": {"gpu": 4, "health": "Critical", "message": "..."}, "gpu_off_bus": 3,
//  "psu_health": {"psu": 2, "health": "Warning", "message": "..."}}
// gpu_health, gpu_off_bus and psu_health take null to clear them; indexes count from 1.
// firmware_slowdown takes one rule or an array of them and replaces the whole list; null or []
// clears it.
// gpu_faults takes agent::SimFault's JSON form (validated by the agent's parser, GPU index below
// 64) and replaces the whole list; null or [] clears it. Members absent from `patch` keep their
// value in `base`. An unknown member or a value of the wrong type or range is an invalid_argument
// error naming the member.
common::Result<Faults> applyFaultsJson(Faults base, const nlohmann::json& patch);
nlohmann::json faultsToJson(const Faults& faults);

}  // namespace sim

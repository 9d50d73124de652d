// The booted host's operating system: the real provisioner agent, in-process, with the simulated
// GPU backend holding this machine's GPUs (the BMC's serials and UUIDs) and GPU faults.
#pragma once

#include <functional>
#include <string>

#include "agent/cmdline.hpp"
#include "host/boot_run.hpp"
#include "host/host_booter.hpp"

namespace sim::host {

struct AgentLaunch {
  Machine machine;
  agent::KernelParams params;  // from the kernel command line the script gave
  std::string caFile;
  double timeScale = 1;  // the fleet's: simulated seconds per real second
  // The host's disk (BootSettings::hostStateDir/<BMC id>); empty: the burn-in enrols no monitor.
  std::string stateDir;
  int monitorIntervalSeconds = 30;  // real seconds (the health clock's when it is set)
  double healthClockScale = 0;      // BootSettings::healthClockScale
  long long healthClockEpoch = 0;
};

// The simulated backend's configuration for `machine` (exposed for tests).
agent::SimConfig simConfigFor(const Machine& machine, double timeScale);

// Runs the agent to its end and returns its exit code; an error when it cannot start (the
// command line lacks the service URL, node or token). `logLine` gets each line it writes.
common::Result<int> runHostAgent(const AgentLaunch& launch, BootRun& run,
                                 const std::function<void(std::string)>& logLine);

// The operating system booted from the host's disk: the resident monitor (agent/monitor.hpp)
// against the service its burn-in enrolled with, every launch.monitorIntervalSeconds, until the
// host reboots or the fleet stops. Its GPUs degrade on the fleet's clock (time scale), its
// batches carry real time. Returns at once, saying why, when the disk holds no enrolment.
void runHostMonitor(const AgentLaunch& launch, BootRun& run,
                    const std::function<void(std::string)>& logLine);

}  // namespace sim::host

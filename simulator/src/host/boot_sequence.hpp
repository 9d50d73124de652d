// One network boot, on its own thread: the iPXE script (waiting and asking again when told to),
// the kernel and initrd with their digests checked, then the agent (agent_host.hpp).
#pragma once

#include <memory>

#include "host/host_booter.hpp"

namespace sim::host {

struct BootJob {
  BootEvent event;
  BootSettings settings;
  const SimClock* clock = nullptr;
  MachineLookup lookup;
  std::shared_ptr<HostRecord> host;
  std::shared_ptr<BootRun> run;
};

void runNetworkBoot(const BootJob& job);

// A boot from the local disk: the installed OS runs the resident monitor when the host's disk
// holds a burn-in's enrolment (BootSettings::hostStateDir), until the host reboots.
void runDiskBoot(const BootJob& job);

}  // namespace sim::host

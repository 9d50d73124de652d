// The simulated hosts behind the BMCs: a reset with a one-time network boot (PXE or UEFI HTTP)
// makes the host fetch its iPXE script from the boot service, fetch and check the kernel and
// initrd, and run the real provisioner agent in-process on the simulated GPU backend.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace sim {

struct BootSettings {
  std::string serviceUrl;     // e.g. http://127.0.0.1:8080; empty: network boots fetch nothing
  std::string caFile;         // PEM bundle for an https service (scripts, artifacts, the agent)
  int maxScriptRetries = 20;  // wait-and-retry scripts (or failed fetches) before giving up
  // Each host's disk (<dir>/<BMC id>): where the burn-in enrols the resident monitor and where
  // the monitor keeps its credential and queue. Empty: hosts keep nothing, run no monitor.
  std::string hostStateDir;
  int monitorIntervalSeconds = 30;  // real seconds between a resident monitor's batches
  // "health_clock": {"epoch", "scale"}: the resident monitors' clock runs `scale` times as fast
  // as the real one from Unix time `epoch` on (the service's --health-time-scale and
  // --health-clock-epoch, the same values): their readings' times, their GPUs' degradation and
  // monitorIntervalSeconds are then on that clock. 0: the real clock.
  double healthClockScale = 0;
  long long healthClockEpoch = 0;
};

// What the host did on its latest boot (observability for tests and the demo).
struct HostStatus {
  int boots = 0;
  std::string lastBoot;               // "", "network" or "disk"
  std::string agent = "not_started";  // "running", "exited:<code>", "monitor"
  std::string error;                  // why the latest network boot failed, if it did
  int scriptFetches = 0;              // iPXE scripts fetched, over all boots
  int imageRetries = 0;               // boot scripts started over after a failed image fetch
  std::vector<std::string> log;       // the latest lines (boot steps, the agent's output)
};

// {"boots", "last_boot", "agent", "error", "script_fetches", "image_retries", "log"}.
nlohmann::json hostStatusJson(const HostStatus& status);

}  // namespace sim

// runAgent with the host's drives: a wipe task erases them beside the GPUs (agent/drives.hpp).
#pragma once

#include <iosfwd>

#include "agent/agent_main.hpp"
#include "agent/drives.hpp"

namespace agent {

struct AgentDrives {
  DriveBackend* backend = nullptr;  // nullptr: this agent erases no drives in band, and logs so
  EraseClock* clock = nullptr;      // required with a backend
  DriveEraseOptions options;        // tool_version is set to kAgentVersion
};

// runAgent (agent_main.hpp), which calls this with the drives of a SimulatedGpuBackend on a
// virtual clock, and with none for any other backend.
int runAgent(const AgentOptions& options, GpuBackend& backend, const AgentDrives& drives,
             ServiceClient& client, std::ostream& log);

}  // namespace agent

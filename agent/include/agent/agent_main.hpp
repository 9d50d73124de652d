// provisioner-agent's flow, testable without a process: discover facts, register, fetch the task,
// run it while streaming progress, post the result and print the verdict.
#pragma once

#include <filesystem>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

#include "agent/gpu_backend.hpp"
#include "agent/protocol.hpp"
#include "agent/service_client.hpp"

namespace agent {

inline constexpr std::string_view kAgentVersion = "0.1.0";

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;  // refused token, fatal 4xx, service unreachable
inline constexpr int kExitUsage = 2;

// What the host tells about itself beyond its GPUs.
struct HostFacts {
  std::string host_serial;
  std::vector<NicFacts> nics;
};

// From sysfs: /class/dmi/id/product_serial and /class/net/*/address (physical interfaces only:
// no loopback, nothing under /devices/virtual/net, no all-zero address). Missing files give empty
// values: reading the DMI serial needs root on most kernels.
HostFacts readHostFacts(const std::filesystem::path& sys_root = "/sys");

struct AgentOptions {
  std::string boot_token;
  HostFacts host;
  // Where a burn-in enrolls the node's monitor credential (empty: it does not enroll), and the
  // service URL and node the resident monitor will report to.
  std::filesystem::path state_dir;
  std::string service_url;
  std::string node_id;
};

// Returns the process exit code (kExitOk also when the task is "none" or the verdict failed: the
// agent did its job). Never writes a token to `log`.
int runAgent(const AgentOptions& options, GpuBackend& backend, ServiceClient& client,
             std::ostream& log);

// "burn-in task 42: failed" and one line per failure, from the service's answer.
std::string summarizeVerdict(const ResultAck& ack);

}  // namespace agent

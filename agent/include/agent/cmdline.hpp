// provisioner-agent's configuration: the kernel command line the node booted with
// (provisioner.url / provisioner.node / provisioner.token) and the flags, which override it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"

namespace agent {

struct KernelParams {
  std::string url;
  std::string node;
  std::string token;
};

// Splits on whitespace outside double quotes (quotes removed, `key="a b"` and `"key=a b"` both
// work); the last occurrence of a key wins; unknown keys are ignored.
KernelParams parseKernelCmdline(std::string_view text);

struct AgentArgs {
  std::string service_url;
  std::string node_id;
  std::string token;
  std::string cmdline_file = "/proc/cmdline";
  std::string backend;  // "simulated" or "cuda"; empty: cuda when built with it, else simulated
  std::string sim_config_file;
  std::string ca_file;
  std::string local_task_file;  // --local-task: run this task JSON without the service
  int max_attempts = 8;
  bool help = false;
  // `provisioner-agent monitor`: the resident mode (docs/health.md); no boot token needed.
  bool monitor = false;
  // Where the monitor credential and the health queue live (the unit's StateDirectory); the
  // burn-in enrolls into it.
  std::string state_dir = "/var/lib/provisioner-agent";
  int interval_seconds = 30;
  int spool_max_batches = 2880;
  int intervals = 0;  // 0: run until stopped
};

std::string agentUsage();
// InvalidArgument "usage" naming the flag.
common::Result<AgentArgs> parseAgentArgs(const std::vector<std::string>& args);
// Fills what the flags left empty (not needed with --local-task) from the kernel command line;
// InvalidArgument "usage" naming what is still missing (service URL, node, and, except in
// monitor mode, the boot token).
common::Result<AgentArgs> applyKernelParams(AgentArgs args, const KernelParams& params);

}  // namespace agent

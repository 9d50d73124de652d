// provisioner-agent: the in-band agent inside the provisioning image. Flags and the kernel command
// line configure it; runAgent() does the work.
#include <fstream>
#include <iostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "agent/agent_main.hpp"
#include "agent/cmdline.hpp"
#include "agent/local_task.hpp"
#include "agent/monitor.hpp"
#include "agent/sim_backend.hpp"
#ifdef PROVISIONER_AGENT_HAS_CUDA
#include "agent/cuda_backend.hpp"
#endif

namespace {

bool readFile(const std::string& path, std::string& out) {
  std::ifstream in(path);
  if (!in) return false;
  std::ostringstream text;
  text << in.rdbuf();
  out = text.str();
  return true;
}

struct Backend {
  std::unique_ptr<agent::GpuBackend> gpu;
  agent::HostFacts host;
};

common::Result<Backend> makeSimulated(const agent::AgentArgs& args) {
  agent::SimConfig config;
  if (!args.sim_config_file.empty()) {
    std::string text;
    if (!readFile(args.sim_config_file, text)) {
      return common::invalidArgument("usage", "cannot read " + args.sim_config_file,
                                     "--sim-config");
    }
    PROV_ASSIGN(config, agent::parseSimConfigText(text));
  } else {
    PROV_ASSIGN(config, agent::parseSimConfigText("{}"));  // the defaults, with a derived NIC
  }
  PROV_ASSIGN(auto sim, agent::SimulatedGpuBackend::create(std::move(config)));
  agent::HostFacts host{sim->hostSerial(), sim->nics()};
  return Backend{std::move(sim), std::move(host)};
}

common::Result<Backend> makeBackend(const agent::AgentArgs& args) {
  std::string kind = args.backend;
#ifdef PROVISIONER_AGENT_HAS_CUDA
  if (kind.empty()) kind = "cuda";
  if (kind == "cuda") {
    PROV_ASSIGN(auto gpu, agent::makeCudaBackend());
    return Backend{std::move(gpu), agent::readHostFacts("/sys")};
  }
#else
  if (kind == "cuda") {
    return common::invalidArgument("usage", "this agent was built without CUDA", "--backend");
  }
#endif
  return makeSimulated(args);
}

// The monitor of a node booted from its disk finds the service where its burn-in left it.
agent::KernelParams withEnrolment(agent::KernelParams params, const agent::AgentArgs& args) {
  if (!args.monitor || (!params.url.empty() && !params.node.empty())) return params;
  if (auto endpoint = agent::readMonitorEndpoint(args.state_dir)) {
    if (params.url.empty()) params.url = endpoint->service_url;
    if (params.node.empty()) params.node = endpoint->node_id;
  }
  return params;
}

common::Result<agent::AgentArgs> resolveArgs(const std::vector<std::string>& argv) {
  PROV_ASSIGN(auto args, agent::parseAgentArgs(argv));
  if (args.help || !args.local_task_file.empty()) return args;  // neither needs the service
  std::string cmdline;
  if (!readFile(args.cmdline_file, cmdline) && args.cmdline_file != "/proc/cmdline") {
    return common::invalidArgument("usage", "cannot read " + args.cmdline_file, "--cmdline");
  }
  auto params = withEnrolment(agent::parseKernelCmdline(cmdline), args);
  return agent::applyKernelParams(std::move(args), params);
}

// provisioner-agent monitor: runs until stopped (or --intervals); 1 when the state folder is
// unusable.
int runMonitor(const agent::AgentArgs& args, agent::GpuBackend& gpu, agent::ServiceClient& client) {
  agent::MonitorOptions options;
  options.state_dir = args.state_dir;
  options.interval = std::chrono::seconds{args.interval_seconds};
  options.spool_max_batches = static_cast<std::size_t>(args.spool_max_batches);
  options.intervals = args.intervals;
  std::string boot_id;
  readFile("/proc/sys/kernel/random/boot_id", boot_id);
  options.driver_epoch = agent::driverEpoch(gpu.driverVersion(), boot_id);
  auto totals = agent::runMonitor(options, gpu, client, std::cerr);
  if (!totals) {
    std::cerr << "provisioner-agent monitor: " << totals.error().message << "\n";
    return agent::kExitFailure;
  }
  std::cerr << "provisioner-agent monitor: " << totals->sampled << " batch(es) queued, "
            << totals->sent << " sent, " << totals->refused << " refused, " << totals->rotations
            << " rotation(s)\n";
  return agent::kExitOk;
}

// --local-task: the result JSON on stdout, logs on stderr; 1 when the GPUs failed the task.
int runLocal(const std::string& path, agent::GpuBackend& gpu) {
  std::string text;
  if (!readFile(path, text)) {
    std::cerr << "provisioner-agent: cannot read " << path << "\n";
    return agent::kExitUsage;
  }
  auto result = agent::runLocalTask(text, gpu, std::cerr);
  if (!result) {
    std::cerr << "provisioner-agent: " << path << ": " << result.error().message << "\n";
    return agent::kExitUsage;
  }
  std::cout << agent::toJson(*result).dump(2) << "\n";
  if (!result->error.empty()) std::cerr << "provisioner-agent: " << result->error << "\n";
  return result->error.empty() ? agent::kExitOk : agent::kExitFailure;
}

}  // namespace

int main(int argc, char** argv) {
  auto args = resolveArgs(std::vector<std::string>(argv + 1, argv + argc));
  if (!args) {
    std::cerr << "provisioner-agent: " << args.error().message << "\n" << agent::agentUsage();
    return agent::kExitUsage;
  }
  if (args->help) {
    std::cout << agent::agentUsage();
    return agent::kExitOk;
  }
  auto backend = makeBackend(*args);
  if (!backend) {
    std::cerr << "provisioner-agent: backend: " << backend.error().message << "\n";
    // A bad flag or config file is the caller's to fix (2); a GPU stack that fails is not (1).
    bool usage = backend.error().kind == common::ErrorKind::kInvalidArgument;
    return usage ? agent::kExitUsage : agent::kExitFailure;
  }
  if (!args->local_task_file.empty()) return runLocal(args->local_task_file, *backend->gpu);
  agent::ServiceClientOptions client_options;
  client_options.base_url = args->service_url;
  client_options.node_id = args->node_id;
  client_options.ca_file = args->ca_file;
  client_options.retry.max_attempts = args->max_attempts;
  client_options.on_retry = [](const std::string& what) {
    std::cerr << "provisioner-agent: retrying: " << what << "\n";
  };
  auto client = agent::ServiceClient::create(std::move(client_options));
  if (!client) {
    std::cerr << "provisioner-agent: " << client.error().message << "\n";
    return agent::kExitUsage;
  }
  if (args->monitor) return runMonitor(*args, *backend->gpu, *client);
  agent::AgentOptions options;
  options.boot_token = args->token;
  options.host = std::move(backend->host);
  options.state_dir = args->state_dir;
  options.service_url = args->service_url;
  options.node_id = args->node_id;
  return agent::runAgent(options, *backend->gpu, *client, std::cout);
}

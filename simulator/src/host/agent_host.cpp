#include "host/agent_host.hpp"

#include <atomic>
#include <cstdio>
#include <ostream>
#include <streambuf>

#include "agent/agent_main.hpp"
#include "agent/drives_flow.hpp"
#include "agent/monitor.hpp"
#include "agent/nominal.hpp"
#include "agent/service_client.hpp"
#include "agent/sim_backend.hpp"
#include "common/mac_address.hpp"
#include "common/scaled_time.hpp"

namespace sim::host {
namespace {

constexpr const char* kFallbackModel = "NVIDIA H100 80GB HBM3";
constexpr std::size_t kMaxLineLength = 1024;

// NVML names parts "NVIDIA H100 80GB HBM3" where Redfish often says "H100 80GB HBM3".
std::string agentModel(const std::string& bmcModel) {
  if (bmcModel.empty()) return kFallbackModel;
  std::string model = bmcModel.rfind("NVIDIA", 0) == 0 ? bmcModel : "NVIDIA " + bmcModel;
  return agent::nominalFor(model) ? model : kFallbackModel;
}

// The agent's log stream: whole lines go to the host's log.
class LineBuffer : public std::streambuf {
 public:
  explicit LineBuffer(const std::function<void(std::string)>& sink) : sink_(sink) {}
  ~LineBuffer() override {
    if (!line_.empty()) sink_(std::move(line_));
  }

 protected:
  int_type overflow(int_type c) override {
    if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
    put(traits_type::to_char_type(c));
    return c;
  }
  std::streamsize xsputn(const char* text, std::streamsize count) override {
    for (std::streamsize i = 0; i < count; ++i) put(text[i]);
    return count;
  }

 private:
  void put(char c) {
    if (c == '\n') {
      sink_(std::move(line_));
      line_.clear();
    } else if (line_.size() < kMaxLineLength) {
      line_ += c;
    }
  }
  const std::function<void(std::string)>& sink_;
  std::string line_;
};

// The simulated GPUs, gated on the host still being up: after a reset the old agent freezes
// (a host that rebooted sends nothing), and when the fleet stops its calls fail.
// Measurements are scaled by the machine's GPU speed at the time (a firmware_slowdown).
class HostGpus : public agent::GpuBackend {
 public:
  HostGpus(std::unique_ptr<agent::SimulatedGpuBackend> gpus, BootRun& run,
           std::function<double()> speed)
      : gpus_(std::move(gpus)), run_(run), speed_(std::move(speed)) {}
  std::string name() const override { return gpus_->name(); }
  std::string driverVersion() const override { return gpus_->driverVersion(); }
  common::Result<std::vector<agent::GpuFacts>> discover() override {
    PROV_TRY(up());
    return gpus_->discover();
  }
  common::Result<double> computeTflops(int index, double seconds) override {
    PROV_TRY(up());
    return scaled(gpus_->computeTflops(index, seconds));
  }
  common::Result<double> hbmBandwidthGbps(int index, double seconds) override {
    PROV_TRY(up());
    return scaled(gpus_->hbmBandwidthGbps(index, seconds));
  }
  common::Result<double> pcieBandwidthGbps(int index, bool toDevice, double seconds) override {
    PROV_TRY(up());
    return scaled(gpus_->pcieBandwidthGbps(index, toDevice, seconds));
  }
  common::Result<double> peerBandwidthGbps(int from, int to, double seconds) override {
    PROV_TRY(up());
    return scaled(gpus_->peerBandwidthGbps(from, to, seconds));
  }
  common::Result<agent::HealthSample> sampleHealth(int index) override {
    PROV_TRY(up());
    return gpus_->sampleHealth(index);
  }
  common::Result<agent::GpuWipeReport> wipeMemory(int index, const agent::WipePlan& plan) override {
    PROV_TRY(up());
    return gpus_->wipeMemory(index, plan);
  }
  common::Result<void> resetGpu(int index) override {
    PROV_TRY(up());
    return gpus_->resetGpu(index);
  }

 private:
  common::Result<void> up() {
    if (run_.holdIfGone()) return common::success();
    return common::unavailable("host_powered_off", "the simulated host was powered off");
  }
  common::Result<double> scaled(common::Result<double> figure) const {
    if (!figure || !speed_) return figure;
    return *figure * speed_();
  }
  std::unique_ptr<agent::SimulatedGpuBackend> gpus_;
  BootRun& run_;
  std::function<double()> speed_;
};

agent::ServiceClientOptions clientOptions(const AgentLaunch& launch, BootRun& run,
                                          const std::function<void(std::string)>& logLine) {
  agent::ServiceClientOptions options;
  options.base_url = launch.params.url;
  options.node_id = launch.params.node;
  options.ca_file = launch.caFile;
  options.jitter_seed = launch.machine.seed | 1;  // 0 would mean "random"
  options.sleeper = [&run](std::chrono::milliseconds wait) {
    if (run.sleepFor(wait)) return;
    run.holdIfGone();
  };
  options.on_retry = [&logLine](const std::string& what) { logLine("retrying: " + what); };
  return options;
}

using WallClock = std::function<std::chrono::system_clock::time_point()>;

// `scale` seconds pass each real second from `epoch` on (common/scaled_time.hpp).
WallClock scaledClock(std::chrono::system_clock::time_point epoch, double scale) {
  return
      [epoch, scale] { return common::scaledTime(epoch, scale, std::chrono::system_clock::now()); };
}

// The degradation faults count days on the fleet's clock: `timeScale` simulated seconds pass
// each real second from the boot on.
WallClock fleetClock(double timeScale) {
  return scaledClock(std::chrono::system_clock::now(), timeScale > 0 ? timeScale : 1);
}

// The fleet's health clock (BootSettings::healthClockScale): one epoch for every host and the
// service, so that all agree on the time.
WallClock healthClock(const AgentLaunch& launch) {
  return scaledClock(
      std::chrono::system_clock::time_point{std::chrono::seconds{launch.healthClockEpoch}},
      launch.healthClockScale);
}

// A new driver epoch each boot, as /proc/sys/kernel/random/boot_id gives a real host.
std::string newBootId() {
  static std::atomic<std::uint64_t> boots{0};
  char id[17];
  std::snprintf(id, sizeof id, "%016llx",
                static_cast<unsigned long long>(++boots * 0x9E3779B97F4A7C15ULL));
  return id;
}

}  // namespace

agent::SimConfig simConfigFor(const Machine& machine, double timeScale) {
  const BmcIdentity& identity = machine.identity;
  agent::SimConfig config;
  config.model = agentModel(identity.gpuModel);
  if (!identity.gpuSerials.empty()) config.gpus = static_cast<int>(identity.gpuSerials.size());
  config.gpu_serials = identity.gpuSerials;
  config.gpu_uuids = identity.gpuUuids;
  config.seed = machine.seed;
  if (!identity.systemSerial.empty()) config.host_serial = identity.systemSerial;
  config.time_scale = timeScale > 0 ? 1.0 / timeScale : 0;
  for (std::size_t i = 0; i < identity.hostMacs.size(); ++i) {
    auto mac = common::normalizeMac(identity.hostMacs[i]);
    if (mac) config.nics.push_back(agent::NicFacts{"eth" + std::to_string(i), *mac});
  }
  for (const agent::SimFault& fault : machine.gpuFaults) {
    if (fault.gpu < config.gpus) config.faults.push_back(fault);
  }
  return config;
}

common::Result<int> runHostAgent(const AgentLaunch& launch, BootRun& run,
                                 const std::function<void(std::string)>& logLine) {
  PROV_ASSIGN(agent::AgentArgs args, agent::applyKernelParams({}, launch.params));
  agent::SimConfig config = simConfigFor(launch.machine, launch.timeScale);
  agent::HostFacts facts{config.host_serial, config.nics};
  PROV_ASSIGN(auto gpus, agent::SimulatedGpuBackend::create(std::move(config)));
  // The host's drives live with its GPUs; a wipe task erases them on a virtual clock, so a
  // simulated erase that never completes fails at once rather than after hours.
  agent::VirtualEraseClock erase_clock;
  agent::AgentDrives drives{&gpus->drives(), &erase_clock, {}};
  HostGpus backend(std::move(gpus), run, launch.machine.gpuSpeed);
  PROV_ASSIGN(agent::ServiceClient client,
              agent::ServiceClient::create(clientOptions(launch, run, logLine)));
  LineBuffer buffer(logLine);
  std::ostream log(&buffer);
  logLine("provisioner-agent " + std::string(agent::kAgentVersion) + " starting against " +
          args.service_url + " as node " + args.node_id);
  agent::AgentOptions options;
  options.boot_token = args.token;
  options.host = std::move(facts);
  if (!launch.stateDir.empty()) {
    options.state_dir = launch.stateDir;
    options.service_url = args.service_url;
    options.node_id = args.node_id;
  }
  return agent::runAgent(options, backend, drives, client, log);
}

void runHostMonitor(const AgentLaunch& launch, BootRun& run,
                    const std::function<void(std::string)>& logLine) {
  if (launch.stateDir.empty()) return;
  auto endpoint = agent::readMonitorEndpoint(launch.stateDir);
  if (!endpoint) return logLine("no resident monitor: " + endpoint.error().message);
  agent::SimConfig config = simConfigFor(launch.machine, launch.timeScale);
  config.in_service_load = true;
  auto gpus = agent::SimulatedGpuBackend::create(std::move(config));
  if (!gpus) return logLine("no resident monitor: " + gpus.error().message);
  const bool health_clock = launch.healthClockScale > 0;
  (*gpus)->setClock(health_clock ? healthClock(launch) : fleetClock(launch.timeScale));
  HostGpus backend(std::move(gpus).value(), run, launch.machine.gpuSpeed);
  AgentLaunch target = launch;
  target.params.url = endpoint->service_url;
  target.params.node = endpoint->node_id;
  auto client = agent::ServiceClient::create(clientOptions(target, run, logLine));
  if (!client) return logLine("no resident monitor: " + client.error().message);
  agent::MonitorOptions options;
  options.state_dir = launch.stateDir;
  options.interval = std::chrono::seconds{launch.monitorIntervalSeconds};
  options.driver_epoch = agent::driverEpoch(backend.driverVersion(), newBootId());
  options.sleeper = [&run](std::chrono::milliseconds wait) { run.sleepFor(wait); };
  if (health_clock) {  // the interval and the readings' times on the health clock
    options.now = healthClock(launch);
    options.sleeper = [&run, scale = launch.healthClockScale](std::chrono::milliseconds wait) {
      run.sleepFor(std::chrono::milliseconds(std::max<long long>(
          1, static_cast<long long>(static_cast<double>(wait.count()) / scale))));
    };
  }
  options.keep_going = [&run] { return run.current(); };
  LineBuffer buffer(logLine);
  std::ostream log(&buffer);
  logLine("provisioner-agent monitor starting against " + endpoint->service_url + " as node " +
          endpoint->node_id);
  auto totals = agent::runMonitor(options, backend, *client, log);
  if (!totals) logLine("provisioner-agent monitor: " + totals.error().message);
}

}  // namespace sim::host

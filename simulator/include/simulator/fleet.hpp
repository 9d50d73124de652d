// A simulated fleet: racks x nodes x vendor profile x faults, declared in JSON, each node a BMC
// served by the engine at its own loopback address, plus the control API. Tests start one
// in-process with Fleet::start; the bmc-sim program wraps the same thing.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "common/result.hpp"
#include "simulator/bmc_model.hpp"
#include "simulator/engine.hpp"
#include "simulator/faults.hpp"
#include "simulator/host_boot.hpp"
#include "simulator/sim_clock.hpp"

namespace sim {

struct RackSpec {
  std::string name;  // node ids are "<name>-n<NN>", NN 1-based with at least 2 digits
  int nodes = 0;
  std::string profile;               // a shipped profile name, e.g. "dgx-h100"
  Faults faults;                     // the fleet-wide faults with the rack's patch applied
  std::map<int, Faults> nodeFaults;  // 1-based node number -> the rack's faults patched again
};

struct FleetSpec {
  std::uint64_t seed = 1;
  double timeScale = 1.0;
  bool tls = true;
  std::string addressBase = "127.20.0.1";
  std::uint16_t port = 8443;  // 0 picks a free one, shared by every BMC
  BmcCredentials credentials{"root", "0penBmc"};
  Faults faults;  // fleet-wide
  BootSettings boot;
  std::vector<RackSpec> racks;
  // Static mode (instead of racks): one BMC serving this recorded dump as recorded.
  std::string staticDumpDir;
  std::string staticAddress = "127.0.0.1";
};

// The fleet file / control API form (see docs/simulator.md), including
// "boot": {"service_url": ..., "ca_file": ..., "max_script_retries": N}; errors name the bad field,
// e.g. "racks[1].nodes" or "racks[0].node_faults.3.reset_rate".
common::Result<FleetSpec> parseFleetSpec(const nlohmann::json& json);
common::Result<FleetSpec> loadFleetSpecFile(const std::string& path);
// The "boot" member alone (bmc-sim --boot-service); errors name "boot.<member>".
common::Result<BootSettings> parseBootSettings(const nlohmann::json& json);
// Sets the median latency everywhere in the spec (fleet, racks, nodes): bmc-sim --latency-ms.
void overrideLatency(FleetSpec& spec, double medianMs);

struct FleetOptions {
  std::optional<std::uint16_t> controlPort = 0;  // 0: a free port; nullopt: no control API
  std::string profilesDir;                       // empty: the shipped simulator/profiles
};

// What one node of the fleet is; the default is a BmcModel behind an adapter.
class FleetNode : public BmcHandler {
 public:
  virtual BmcIdentity identity() const = 0;
  virtual void setBehaviourFaults(const BehaviourFaults& faults) = 0;
  virtual nlohmann::json snapshot() const = 0;
  // Told whenever the host boots (BmcModel::setBootObserver); nodes without a host ignore it.
  virtual void setBootObserver(std::function<void(const BootEvent&)> observer) { (void)observer; }
  // How the BMC downloads SimpleUpdate images (BmcModel::setImageFetcher); others ignore it.
  virtual void setImageFetcher(ImageFetcher fetcher) { (void)fetcher; }
  // FirmwareInventory as it reads now (for firmware_slowdown); empty for nodes without one.
  virtual std::vector<FirmwareVersion> firmwareVersions() const { return {}; }
};

// The speed of a node's GPUs under its firmware_slowdown rules: the product of (1 - percent/100)
// over every rule some member of `inventory` meets (Id or Name containing `match`,
// case-insensitive, at exactly `version`); 1 when none.
double firmwareGpuSpeed(const std::vector<FirmwareSlowdown>& rules,
                        const std::vector<FirmwareVersion>& inventory);

struct FleetNodePlan {
  std::string id;
  std::string rack;
  std::string profile;
  std::size_t index = 0;   // 0-based position in the fleet
  std::uint64_t seed = 0;  // fleet seed ^ index
  BmcCredentials credentials;
  const SimClock* clock = nullptr;
  std::string staticDumpDir;  // set in static mode
};

using NodeFactory =
    std::function<common::Result<std::shared_ptr<FleetNode>>(const FleetNodePlan& plan)>;
// BmcModel nodes: shipped profiles loaded once and shared, or the static dump unpersonalised.
NodeFactory modelNodeFactory(std::string profilesDir = {});

struct BmcEndpoint {
  std::string id;
  std::string rack;
  std::string profile;
  std::string baseUrl;
  std::string address;
  std::uint16_t port = 0;
  std::string fingerprint;  // empty over plain HTTP
  BmcCredentials credentials;
  BmcIdentity identity;
};

class Fleet {
 public:
  // Builds every node from BmcModel and serves them (engine thread started).
  static common::Result<std::unique_ptr<Fleet>> start(FleetSpec spec, FleetOptions options = {});
  // The same with nodes from `factory` (tests use simple nodes).
  static common::Result<std::unique_ptr<Fleet>> start(FleetSpec spec, FleetOptions options,
                                                      NodeFactory factory);
  ~Fleet();
  Fleet(const Fleet&) = delete;
  Fleet& operator=(const Fleet&) = delete;

  std::vector<BmcEndpoint> bmcs() const;
  common::Result<BmcEndpoint> bmc(const std::string& id) const;
  common::Result<Faults> faults(const std::string& id) const;
  // Applies transport faults and latency in the engine, behaviour faults in the node; turning
  // certificate_rotated on gives the BMC a new certificate for new connections.
  common::Result<void> setFaults(const std::string& id, const Faults& faults);
  // Merge patches in the JSON form of faults.hpp: one BMC, or every BMC.
  common::Result<Faults> patchFaults(const std::string& id, const nlohmann::json& patch);
  common::Result<void> patchAllFaults(const nlohmann::json& patch);
  // The BMC's state, plus "host": hostStatusJson(hostStatus(id)).
  common::Result<nlohmann::json> snapshot(const std::string& id) const;
  common::Result<HostStatus> hostStatus(const std::string& id) const;
  EngineStats stats() const;
  SimClock& clock();
  const SimClock& clock() const;
  std::size_t size() const;  // number of BMCs
  const FleetSpec& spec() const;
  std::uint16_t port() const;         // the BMCs' shared port
  std::uint16_t controlPort() const;  // 0 without a control API
  // Stops the hosts' boots (joining their threads: agents still running are told the host is
  // gone), then the engine. Idempotent.
  void stop();

 private:
  struct Impl;
  explicit Fleet(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace sim

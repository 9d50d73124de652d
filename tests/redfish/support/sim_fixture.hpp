// A simulated fleet served in-process over real sockets, and a transport to talk to it: the
// Redfish client tested end to end against the BMC simulator.
#pragma once

#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "redfish/transport.hpp"
#include "simulator/fleet.hpp"

namespace testing {

// Transport settings that keep fault tests quick: short back-off, Retry-After capped low.
redfish::TransportOptions quickTransportOptions();

struct SimFleet {
  std::unique_ptr<sim::Fleet> fleet;
  std::unique_ptr<redfish::Transport> transport;

  // `spec` is a fleet file document (docs/simulator.md); port 0 and an address base of its own
  // are filled in when absent so tests never collide.
  static SimFleet start(nlohmann::json spec,
                        redfish::TransportOptions options = quickTransportOptions());
  SimFleet() = default;
  SimFleet(SimFleet&&) = default;
  SimFleet& operator=(SimFleet&&) = default;
  ~SimFleet();

  sim::BmcEndpoint endpoint(const std::string& id) const;
  redfish::BmcEndpoint redfishEndpoint(const std::string& id) const;
  std::shared_ptr<redfish::BmcClient> client(const std::string& id);
  void patchFaults(const std::string& id, const nlohmann::json& patch);
  nlohmann::json snapshot(const std::string& id) const;
};

// A fleet of `nodes` BMCs of one profile in one rack "r01" ("r01-n01", ...).
nlohmann::json oneRack(const std::string& profile, int nodes, bool tls = true,
                       double timeScale = 1.0);

}  // namespace testing

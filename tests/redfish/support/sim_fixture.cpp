#include "redfish/support/sim_fixture.hpp"

#include <atomic>
#include <stdexcept>

namespace testing {
namespace {

// Each fleet in this test process gets its own /16 of loopback addresses.
std::string nextAddressBase() {
  static std::atomic<int> next{0};
  return "127." + std::to_string(60 + next++ % 100) + ".0.1";
}

}  // namespace

redfish::TransportOptions quickTransportOptions() {
  redfish::TransportOptions options;
  options.requestTimeout = std::chrono::seconds(10);
  options.connectTimeout = std::chrono::seconds(5);
  options.backoffBase = std::chrono::milliseconds(5);
  options.backoffCap = std::chrono::milliseconds(50);
  options.retryAfterCap = std::chrono::milliseconds(50);
  options.closeTimeout = std::chrono::seconds(2);
  return options;
}

nlohmann::json oneRack(const std::string& profile, int nodes, bool tls, double timeScale) {
  return {{"seed", 7},
          {"time_scale", timeScale},
          {"tls", tls},
          {"racks", {{{"name", "r01"}, {"nodes", nodes}, {"profile", profile}}}}};
}

SimFleet SimFleet::start(nlohmann::json spec, redfish::TransportOptions options) {
  if (!spec.contains("port")) spec["port"] = 0;
  if (!spec.contains("address_base")) spec["address_base"] = nextAddressBase();
  auto parsed = sim::parseFleetSpec(spec);
  if (!parsed) throw std::runtime_error("fleet spec: " + parsed.error().message);
  sim::FleetOptions fleetOptions;
  fleetOptions.controlPort = std::nullopt;
  auto fleet = sim::Fleet::start(*parsed, fleetOptions);
  if (!fleet) throw std::runtime_error("fleet start: " + fleet.error().message);
  SimFleet result;
  result.fleet = std::move(*fleet);
  result.transport = std::make_unique<redfish::Transport>(std::move(options));
  return result;
}

SimFleet::~SimFleet() {
  if (transport) transport->shutdown();
  if (fleet) fleet->stop();
}

sim::BmcEndpoint SimFleet::endpoint(const std::string& id) const {
  auto found = fleet->bmc(id);
  if (!found) throw std::runtime_error("no BMC " + id);
  return *found;
}

redfish::BmcEndpoint SimFleet::redfishEndpoint(const std::string& id) const {
  auto bmc = endpoint(id);
  redfish::BmcEndpoint result;
  result.baseUrl = bmc.baseUrl;
  result.username = bmc.credentials.username;
  result.password = bmc.credentials.password;
  return result;
}

std::shared_ptr<redfish::BmcClient> SimFleet::client(const std::string& id) {
  auto client = transport->client(redfishEndpoint(id));
  if (!client) throw std::runtime_error("client: " + client.error().message);
  return *client;
}

void SimFleet::patchFaults(const std::string& id, const nlohmann::json& patch) {
  auto patched = fleet->patchFaults(id, patch);
  if (!patched) throw std::runtime_error("faults: " + patched.error().message);
}

nlohmann::json SimFleet::snapshot(const std::string& id) const {
  auto snap = fleet->snapshot(id);
  if (!snap) throw std::runtime_error("snapshot: " + snap.error().message);
  return *snap;
}

}  // namespace testing

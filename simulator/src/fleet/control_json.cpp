// JSON views of the fleet for the control API and the state file.
#include <nlohmann/json.hpp>

#include "simulator/control_api.hpp"
#include "simulator/fleet.hpp"

namespace sim {
namespace {

nlohmann::json faultCountersJson(const FaultCounters& faults) {
  return {{"http_5xx", faults.http5xx},
          {"timeouts", faults.timeouts},
          {"resets", faults.resets},
          {"malformed", faults.malformed},
          {"unreachable", faults.unreachable}};
}

nlohmann::json identityJson(const BmcIdentity& identity) {
  return {{"manufacturer", identity.manufacturer},
          {"model", identity.model},
          {"chassis_serial", identity.chassisSerial},
          {"system_serial", identity.systemSerial},
          {"uuid", identity.uuid},
          {"bmc_mac", identity.bmcMac},
          {"gpu_serials", identity.gpuSerials},
          {"gpu_uuids", identity.gpuUuids},
          {"host_macs", identity.hostMacs}};
}

}  // namespace

nlohmann::json endpointJson(const BmcEndpoint& endpoint) {
  return {{"id", endpoint.id},
          {"rack", endpoint.rack},
          {"profile", endpoint.profile},
          {"base_url", endpoint.baseUrl},
          {"address", endpoint.address},
          {"port", endpoint.port},
          {"fingerprint", endpoint.fingerprint},
          {"username", endpoint.credentials.username},
          {"identity", identityJson(endpoint.identity)}};
}

nlohmann::json endpointsJson(const std::vector<BmcEndpoint>& endpoints) {
  nlohmann::json out = nlohmann::json::array();
  for (const BmcEndpoint& endpoint : endpoints) out.push_back(endpointJson(endpoint));
  return out;
}

nlohmann::json statsJson(const EngineStats& stats) {
  nlohmann::json bmcs = nlohmann::json::array();
  for (const BmcStats& bmc : stats.bmcs) {
    bmcs.push_back({{"id", bmc.id},
                    {"requests", bmc.requests},
                    {"answered", bmc.answered},
                    {"connections_accepted", bmc.connectionsAccepted},
                    {"open_connections", bmc.openConnections},
                    {"peak_connections", bmc.peakConnections},
                    {"faults", faultCountersJson(bmc.faults)}});
  }
  return {{"requests", stats.requests},
          {"answered", stats.answered},
          {"connections_accepted", stats.connectionsAccepted},
          {"open_connections", stats.openConnections},
          {"peak_connections", stats.peakConnections},
          {"faults", faultCountersJson(stats.faults)},
          {"bmcs", std::move(bmcs)}};
}

nlohmann::json fleetJson(const Fleet& fleet) {
  const FleetSpec& spec = fleet.spec();
  nlohmann::json racks = nlohmann::json::array();
  for (const RackSpec& rack : spec.racks) {
    racks.push_back({{"name", rack.name}, {"nodes", rack.nodes}, {"profile", rack.profile}});
  }
  return {{"seed", spec.seed},
          {"time_scale", spec.timeScale},
          {"sim_time_s", fleet.clock().now()},
          {"tls", spec.tls},
          {"port", fleet.port()},
          {"bmc_count", fleet.size()},
          {"rack_count", spec.racks.size()},
          {"racks", std::move(racks)},
          {"static", !spec.staticDumpDir.empty()}};
}

}  // namespace sim

// The simulator's control API (plain HTTP on 127.0.0.1, JSON), served on the engine's loop:
//   GET /fleet, GET /bmcs, GET /bmcs/{id}, PUT /bmcs/{id}/faults, PUT /faults, GET /stats.
// See docs/simulator.md.
#pragma once

#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "simulator/engine.hpp"

namespace sim {

class Fleet;
struct BmcEndpoint;

class ControlApi : public BmcHandler {
 public:
  explicit ControlApi(Fleet& fleet) : fleet_(fleet) {}
  HttpResponse handle(const HttpRequest& request) override;
  bool reachable() const override { return true; }

 private:
  Fleet& fleet_;
};

// The JSON of GET /bmcs (also what bmc-sim writes to --state-file). No passwords.
nlohmann::json endpointJson(const BmcEndpoint& endpoint);
nlohmann::json endpointsJson(const std::vector<BmcEndpoint>& endpoints);
nlohmann::json statsJson(const EngineStats& stats);
nlohmann::json fleetJson(const Fleet& fleet);

}  // namespace sim

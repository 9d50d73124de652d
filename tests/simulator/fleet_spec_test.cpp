// Fleet files: racks x nodes x profile x faults, layered fleet -> rack -> node, and errors that
// name the bad field.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "simulator/fleet.hpp"

using namespace sim;
using nlohmann::json;

namespace {

json validFleet() {
  return json::parse(R"({
    "seed": 42, "time_scale": 60, "tls": false, "address_base": "127.24.0.1", "port": 0,
    "credentials": {"username": "admin", "password": "secret"},
    "faults": {"latency_ms": 5, "http_5xx_rate": 0.01},
    "racks": [
      {"name": "r01", "nodes": 16, "profile": "dgx-h100",
       "faults": {"reset_rate": 0.02},
       "node_faults": {"3": {"hung_tasks": true, "latency_ms": 50}}},
      {"name": "r02", "nodes": 4, "profile": "dell-r750"}
    ]})");
}

std::string fieldOf(const json& fleet) {
  auto spec = parseFleetSpec(fleet);
  REQUIRE_FALSE(spec);
  REQUIRE(spec.error().kind == common::ErrorKind::kInvalidArgument);
  return spec.error().field;
}

}  // namespace

TEST_CASE("A fleet file parses into racks with layered faults", "[fleet]") {
  auto spec = parseFleetSpec(validFleet());
  REQUIRE(spec);
  REQUIRE(spec->seed == 42);
  REQUIRE(spec->timeScale == 60);
  REQUIRE_FALSE(spec->tls);
  REQUIRE(spec->addressBase == "127.24.0.1");
  REQUIRE(spec->port == 0);
  REQUIRE(spec->credentials.username == "admin");
  REQUIRE(spec->credentials.password == "secret");
  REQUIRE(spec->racks.size() == 2);
  const RackSpec& r01 = spec->racks[0];
  REQUIRE(r01.nodes == 16);
  REQUIRE(r01.profile == "dgx-h100");
  REQUIRE(r01.faults.latency.medianMs == 5);  // from the fleet
  REQUIRE(r01.faults.transport.http5xxRate == Approx(0.01));
  REQUIRE(r01.faults.transport.resetRate == Approx(0.02));  // the rack's own
  const Faults& node3 = r01.nodeFaults.at(3);
  REQUIRE(node3.behaviour.hungTasks);
  REQUIRE(node3.latency.medianMs == 50);
  REQUIRE(node3.transport.resetRate == Approx(0.02));  // inherited from the rack
  REQUIRE(spec->racks[1].faults.transport.resetRate == 0);

  overrideLatency(*spec, 7);
  REQUIRE(spec->racks[0].nodeFaults.at(3).latency.medianMs == 7);
  REQUIRE(spec->racks[1].faults.latency.medianMs == 7);
}

TEST_CASE("Fleet file defaults apply to absent members", "[fleet]") {
  auto spec =
      parseFleetSpec(json::parse(R"({"racks": [{"name": "a", "nodes": 1, "profile": "p"}]})"));
  REQUIRE(spec);
  REQUIRE(spec->tls);
  REQUIRE(spec->port == 8443);
  REQUIRE(spec->addressBase == "127.20.0.1");
  REQUIRE(spec->seed == 1);
}

TEST_CASE("Fleet file errors name the bad field", "[fleet]") {
  auto fleet = validFleet();
  REQUIRE(fieldOf(json::array()) == "fleet");
  REQUIRE(fieldOf(json{{"racks", json::array()}}) == "racks");

  auto f = fleet;
  f["colour"] = "blue";
  REQUIRE(fieldOf(f) == "colour");
  f = fleet;
  f["seed"] = -3;
  REQUIRE(fieldOf(f) == "seed");
  f = fleet;
  f["time_scale"] = 0;
  REQUIRE(fieldOf(f) == "time_scale");
  f = fleet;
  f["address_base"] = "10.0.0.1";
  REQUIRE(fieldOf(f) == "address_base");
  f = fleet;
  f["port"] = 70000;
  REQUIRE(fieldOf(f) == "port");
  f = fleet;
  f["credentials"]["username"] = 5;
  REQUIRE(fieldOf(f) == "credentials.username");
  f = fleet;
  f["faults"]["bogus"] = 1;
  REQUIRE(fieldOf(f) == "faults.bogus");
  f = fleet;
  f["racks"][1]["nodes"] = "four";
  REQUIRE(fieldOf(f) == "racks[1].nodes");
  f = fleet;
  f["racks"][1]["name"] = "r01";
  REQUIRE(fieldOf(f) == "racks[1].name");
  f = fleet;
  f["racks"][0]["profile"] = "";
  REQUIRE(fieldOf(f) == "racks[0].profile");
  f = fleet;
  f["racks"][0]["faults"]["reset_rate"] = 2;
  REQUIRE(fieldOf(f) == "racks[0].faults.reset_rate");
  f = fleet;
  f["racks"][0]["node_faults"]["17"] = json::object();
  REQUIRE(fieldOf(f) == "racks[0].node_faults.17");
  f = fleet;
  f["racks"][0]["node_faults"]["3"]["timeout_rate"] = "high";
  REQUIRE(fieldOf(f) == "racks[0].node_faults.3.timeout_rate");
  f = fleet;
  f["racks"][0]["extra"] = true;
  REQUIRE(fieldOf(f) == "racks[0].extra");
}

TEST_CASE("A fleet file that is not JSON is a clear error", "[fleet]") {
  auto missing = loadFleetSpecFile("/nonexistent/fleet.json");
  REQUIRE_FALSE(missing);
  REQUIRE(missing.error().kind == common::ErrorKind::kInvalidArgument);
}

// The fleet served in-process (with simple nodes instead of the BMC model) and driven through
// its control API over HTTP.
#include <catch2/catch.hpp>

#include <set>

#include <nlohmann/json.hpp>

#include "simulator/control_api.hpp"
#include "simulator/fleet.hpp"
#include "simulator/support/engine_fake_node.hpp"
#include "simulator/support/engine_test_support.hpp"

using namespace sim;
using nlohmann::json;
using sim::test::presentedFingerprint;

namespace {

std::unique_ptr<Fleet> startFleet(const std::string& addressBase, bool tls = true) {
  json file = json::parse(R"({
    "seed": 9, "port": 0, "credentials": {"username": "root", "password": "pw"},
    "racks": [
      {"name": "r01", "nodes": 3, "profile": "dgx-h100",
       "node_faults": {"2": {"http_5xx_rate": 1.0}}},
      {"name": "r02", "nodes": 2, "profile": "dell-r750"}]})");
  file["tls"] = tls;
  file["address_base"] = addressBase;
  auto spec = parseFleetSpec(file);
  REQUIRE(spec);
  auto fleet = Fleet::start(*spec, FleetOptions{}, sim::test::fakeNodeFactory());
  REQUIRE(fleet);
  return std::move(fleet).value();
}

struct Control {
  explicit Control(const Fleet& fleet) : client("127.0.0.1", fleet.controlPort()) {}
  json get(const std::string& path, int expected = 200) {
    auto result = client.Get(path);
    REQUIRE(result);
    REQUIRE(result->status == expected);
    return json::parse(result->body, nullptr, false);
  }
  json put(const std::string& path, const json& body, int expected = 200) {
    auto result = client.Put(path, body.dump(), "application/json");
    REQUIRE(result);
    REQUIRE(result->status == expected);
    return json::parse(result->body, nullptr, false);
  }
  httplib::Client client;
};

int statusOf(const BmcEndpoint& bmc) {
  httplib::Client client(bmc.baseUrl);
  client.enable_server_certificate_verification(false);
  auto result = client.Get("/redfish/v1");
  return result ? result->status : -1;
}

}  // namespace

TEST_CASE("A fleet names its nodes per rack and serves each at its own address", "[fleet]") {
  auto fleet = startFleet("127.25.0.1");
  auto bmcs = fleet->bmcs();
  REQUIRE(bmcs.size() == 5);
  std::vector<std::string> ids;
  std::set<std::string> addresses;
  for (const auto& bmc : bmcs) {
    ids.push_back(bmc.id);
    addresses.insert(bmc.address);
    REQUIRE(bmc.credentials.username == "root");
    REQUIRE(bmc.identity.id == bmc.id);
    REQUIRE(presentedFingerprint(bmc.address, bmc.port) == bmc.fingerprint);
  }
  REQUIRE(ids == std::vector<std::string>{"r01-n01", "r01-n02", "r01-n03", "r02-n01", "r02-n02"});
  REQUIRE(addresses.size() == 5);
  REQUIRE(bmcs[3].profile == "dell-r750");
  // Node seeds are the fleet seed ^ index: distinct identities.
  REQUIRE(bmcs[0].identity.chassisSerial != bmcs[1].identity.chassisSerial);
  // node_faults of the file reach the engine: r01-n02 always answers 503.
  REQUIRE(statusOf(bmcs[0]) == 200);
  REQUIRE(statusOf(bmcs[1]) == 503);
}

TEST_CASE("Control API GET fleet and bmcs describe the fleet", "[fleet]") {
  auto fleet = startFleet("127.25.1.1");
  Control control(*fleet);
  json info = control.get("/fleet");
  REQUIRE(info["seed"] == 9);
  REQUIRE(info["bmc_count"] == 5);
  REQUIRE(info["rack_count"] == 2);
  REQUIRE(info["port"] == fleet->port());
  json bmcs = control.get("/bmcs");
  REQUIRE(bmcs == endpointsJson(fleet->bmcs()));
  REQUIRE(bmcs[0]["id"] == "r01-n01");
  REQUIRE(bmcs[0]["fingerprint"].get<std::string>().size() == 64);
  REQUIRE(bmcs[0]["identity"]["gpu_serials"].is_array());
  REQUIRE_FALSE(bmcs[0].contains("password"));
  REQUIRE(bmcs.dump().find("\"pw\"") == std::string::npos);

  json one = control.get("/bmcs/r02-n01");
  REQUIRE(one["id"] == "r02-n01");
  REQUIRE(one["snapshot"]["id"] == "r02-n01");
  REQUIRE(one["faults"]["http_5xx_rate"] == 0.0);
  REQUIRE(control.get("/bmcs/r09-n01", 404)["code"] == "unknown_bmc");
  REQUIRE(control.get("/nothing", 404)["code"] == "not_found");
}

TEST_CASE("Control API PUT faults patches one BMC in engine and node", "[fleet]") {
  auto fleet = startFleet("127.25.2.1", false);
  Control control(*fleet);
  json applied =
      control.put("/bmcs/r01-n01/faults", {{"http_5xx_rate", 1.0}, {"hung_tasks", true}});
  REQUIRE(applied["http_5xx_rate"] == 1.0);
  auto bmcs = fleet->bmcs();
  REQUIRE(statusOf(bmcs[0]) == 503);
  REQUIRE(statusOf(bmcs[2]) == 200);
  REQUIRE(control.get("/bmcs/r01-n01")["snapshot"]["hung_tasks"] == true);
  // A merge patch: the earlier member stays.
  control.put("/bmcs/r01-n01/faults", {{"latency_ms", 1}});
  REQUIRE(fleet->faults("r01-n01")->transport.http5xxRate == 1.0);

  json bad = control.put("/bmcs/r01-n01/faults", {{"reset_rate", "often"}}, 400);
  REQUIRE(bad["field"] == "reset_rate");
  REQUIRE(control.put("/bmcs/r01-n01/faults", {{"nonsense", 1}}, 400)["field"] == "nonsense");
  REQUIRE(control.put("/bmcs/zz/faults", {{"latency_ms", 1}}, 404)["code"] == "unknown_bmc");
  auto notJson = control.client.Put("/bmcs/r01-n01/faults", "{", "application/json");
  REQUIRE(notJson);
  REQUIRE(notJson->status == 400);
}

TEST_CASE("Control API PUT faults applies fleet-wide and stats count requests", "[fleet]") {
  auto fleet = startFleet("127.25.3.1", false);
  Control control(*fleet);
  REQUIRE(control.put("/faults", {{"http_5xx_rate", 1.0}})["updated"] == 5);
  for (const auto& bmc : fleet->bmcs()) REQUIRE(statusOf(bmc) == 503);
  REQUIRE(control.put("/faults", {{"bogus", 1.0}}, 400)["field"] == "bogus");
  json stats = control.get("/stats");
  REQUIRE(stats["requests"] == 5);
  REQUIRE(stats["faults"]["http_5xx"] == 5);
  REQUIRE(stats["bmcs"].size() == 5);
  REQUIRE(stats["bmcs"][0]["requests"] == 1);
  REQUIRE(stats["bmcs"][0]["connections_accepted"] == 1);
  REQUIRE(stats["peak_connections"].get<int>() >= 1);
  REQUIRE(control.client.Get("/faults")->status == 405);
}

TEST_CASE("The certificate_rotated fault gives a BMC a new certificate", "[fleet]") {
  auto fleet = startFleet("127.25.4.1");
  Control control(*fleet);
  auto before = *fleet->bmc("r02-n02");
  control.put("/bmcs/r02-n02/faults", {{"certificate_rotated", true}});
  auto after = *fleet->bmc("r02-n02");
  REQUIRE(after.fingerprint != before.fingerprint);
  REQUIRE(presentedFingerprint(after.address, after.port) == after.fingerprint);
  REQUIRE(control.get("/bmcs/r02-n02")["fingerprint"] == after.fingerprint);
  // Setting it again while already rotated changes nothing.
  control.put("/bmcs/r02-n02/faults", {{"certificate_rotated", true}});
  REQUIRE(fleet->bmc("r02-n02")->fingerprint == after.fingerprint);
}

TEST_CASE("A fleet refuses an empty spec and stops cleanly", "[fleet]") {
  REQUIRE_FALSE(Fleet::start(FleetSpec{}, FleetOptions{}, sim::test::fakeNodeFactory()));
  auto fleet = startFleet("127.25.5.1", false);
  fleet->stop();
  fleet->stop();
  REQUIRE(fleet->bmcs().empty());
}

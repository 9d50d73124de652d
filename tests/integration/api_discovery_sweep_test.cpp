// A subnet sweep over a small simulated fleet (plain HTTP on a port of its own): exactly the
// fleet's BMCs are found among the CIDR's addresses, each recorded once with its lifecycle run.
#include <catch2/catch.hpp>

#include <chrono>
#include <set>

#include "inventory/workflow_runs.hpp"
#include "simulator/fleet.hpp"
#include "support/service_fixture.hpp"

using nlohmann::json;
using testing::ServiceFixture;

namespace {

std::unique_ptr<sim::Fleet> startFleet(int nodes) {
  json spec = {{"seed", 3},
               {"tls", false},
               {"port", 0},
               {"address_base", "127.41.7.2"},
               {"racks", {{{"name", "r01"}, {"nodes", nodes}, {"profile", "dell-r750"}}}}};
  auto parsed = sim::parseFleetSpec(spec);
  REQUIRE(parsed);
  sim::FleetOptions options;
  options.controlPort = std::nullopt;
  auto fleet = sim::Fleet::start(*parsed, options);
  REQUIRE(fleet);
  return std::move(*fleet);
}

// Polls the sweep until it ends, for at most 30 s.
json awaitSweep(ServiceFixture& svc, const json& sweep) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  const std::string path = "/api/v1/discovery/sweeps/" + std::to_string(sweep["id"].get<int>());
  json now = sweep;
  while (now["state"] == "running" && std::chrono::steady_clock::now() < deadline) {
    auto r = svc.get(path, "viewer");
    REQUIRE(r.status == 200);
    now = r.json();
  }
  return now;
}

}  // namespace

TEST_CASE("a sweep finds exactly the fleet's BMCs in its CIDR", "[integration][api][discovery]") {
  auto fleet = startFleet(3);
  ServiceFixture svc([] {
    testing::ServiceFixtureOptions o;
    o.with_engine = true;
    return o;
  }());
  json request = {{"cidr", "127.41.7.0/29"},
                  {"port", fleet->port()},
                  {"scheme", "http"},
                  {"site", "dc1"},
                  {"rack", "r01"}};
  auto r = svc.sendJson("POST", "/api/v1/discovery/sweeps", request, "operator");
  REQUIRE(r.status == 202);
  CHECK(r.json()["addresses"] == 6);
  auto done = awaitSweep(svc, r.json());
  CHECK(done["state"] == "done");
  CHECK(done["probed"] == 6);
  CHECK(done["found"] == 3);

  std::set<std::string> expected;
  for (const auto& bmc : fleet->bmcs()) expected.insert(bmc.address);
  auto items = svc.get("/api/v1/discovery/bmcs", "viewer").json()["items"];
  std::set<std::string> found;
  for (const auto& item : items) {
    found.insert(item["bmc_address"].get<std::string>());
    CHECK(item["source"] == "sweep");
    CHECK(item["rack"] == "r01");
    auto run = inventory::latestRunForSubject(svc.db(), "node_lifecycle",
                                              "bmc-at:" + item["bmc_address"].get<std::string>());
    REQUIRE(run);
    REQUIRE(run->has_value());
    auto context = json::parse((*run)->context_json);
    CHECK(context["base_url"] ==
          "http://" + item["bmc_address"].get<std::string>() + ":" + std::to_string(fleet->port()));
  }
  CHECK(found == expected);

  // The same sweep again finds the same rows and the same runs.
  auto second = svc.sendJson("POST", "/api/v1/discovery/sweeps", request, "operator");
  REQUIRE(second.status == 202);
  CHECK(awaitSweep(svc, second.json())["found"] == 3);
  auto again = svc.get("/api/v1/discovery/bmcs", "viewer").json()["items"];
  CHECK(again.size() == 3);
  for (const auto& item : again) CHECK(item["seen_count"] == 2);
}

TEST_CASE("a sweep refuses a bad CIDR naming the field", "[integration][api][discovery]") {
  testing::ServiceFixtureOptions o;
  o.with_engine = true;
  ServiceFixture svc(o);
  for (const char* cidr : {"10.0.0.0/8", "10.0.0.0", "10.0.0.300/24", "10.0.0.0/33"}) {
    INFO(cidr);
    auto r = svc.sendJson("POST", "/api/v1/discovery/sweeps", {{"cidr", cidr}}, "operator");
    CHECK(r.status == 400);
    CHECK(r.json()["field"] == "cidr");
  }
  auto bad_port = svc.sendJson("POST", "/api/v1/discovery/sweeps",
                               {{"cidr", "10.0.0.0/30"}, {"port", 70000}}, "operator");
  CHECK(bad_port.status == 400);
  CHECK(bad_port.json()["field"] == "port");
}

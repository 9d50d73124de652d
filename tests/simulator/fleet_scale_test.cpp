// One process, one loop thread, 1,000 BMCs: start-up time and every BMC answering.
#include <catch2/catch.hpp>

#include <chrono>

#include <nlohmann/json.hpp>

#include "simulator/fleet.hpp"
#include "simulator/support/engine_fake_node.hpp"
#include "simulator/support/engine_test_support.hpp"

using namespace sim;

TEST_CASE("A fleet of 1000 BMCs over HTTPS starts quickly and every BMC answers", "[fleet]") {
  auto spec = parseFleetSpec(nlohmann::json::parse(R"({
    "address_base": "127.26.0.1", "port": 0,
    "racks": [{"name": "big", "nodes": 1000, "profile": "dgx-h100"}]})"));
  REQUIRE(spec);
  auto started = std::chrono::steady_clock::now();
  auto fleet = Fleet::start(*spec, FleetOptions{}, sim::test::fakeNodeFactory());
  auto startup = std::chrono::steady_clock::now() - started;
  REQUIRE(fleet);
  auto bmcs = (*fleet)->bmcs();
  REQUIRE(bmcs.size() == 1000);
  WARN("1000 BMCs (TLS, one loop thread) started in "
       << std::chrono::duration_cast<std::chrono::milliseconds>(startup).count() << " ms");
  REQUIRE(startup < std::chrono::seconds(60));

  started = std::chrono::steady_clock::now();
  for (const BmcEndpoint& bmc : bmcs) {
    REQUIRE(sim::test::presentedFingerprint(bmc.address, bmc.port) == bmc.fingerprint);
  }
  auto handshakes = std::chrono::steady_clock::now() - started;
  WARN("1000 TLS handshakes, one per BMC, took "
       << std::chrono::duration_cast<std::chrono::milliseconds>(handshakes).count() << " ms");
  // And a request on every 50th BMC reaches that BMC's node.
  for (std::size_t i = 0; i < bmcs.size(); i += 50) {
    auto client = sim::test::clientFor(
        ServedBmc{bmcs[i].id, bmcs[i].address, bmcs[i].port, bmcs[i].baseUrl, bmcs[i].fingerprint});
    auto result = client->Get("/redfish/v1");
    REQUIRE(result);
    REQUIRE(nlohmann::json::parse(result->body)["id"] == bmcs[i].id);
  }
  REQUIRE((*fleet)->stats().connectionsAccepted >= 1000);
}

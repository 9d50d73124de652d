// The fleet with the real BMC model: personalised nodes, static mode, profile errors.
#include <filesystem>
#include <set>

#include <catch2/catch.hpp>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include "simulator/fleet.hpp"
#include "simulator/support/engine_test_support.hpp"

using namespace sim;
using nlohmann::json;

namespace {

json getJson(const BmcEndpoint& bmc, const std::string& path) {
  httplib::Client client(bmc.baseUrl);
  client.enable_server_certificate_verification(false);
  client.set_basic_auth(bmc.credentials.username, bmc.credentials.password);
  auto result = client.Get(path);
  REQUIRE(result);
  REQUIRE(result->status == 200);
  return json::parse(result->body, nullptr, false);
}

}  // namespace

TEST_CASE("A model fleet serves personalised BMCs per shipped profile", "[fleet]") {
  auto spec = parseFleetSpec(json::parse(R"({
    "seed": 5, "address_base": "127.28.0.1", "port": 0,
    "credentials": {"username": "root", "password": "pw"},
    "racks": [{"name": "r01", "nodes": 3, "profile": "dgx-h100"},
              {"name": "r02", "nodes": 2, "profile": "dell-r750"}]})"));
  REQUIRE(spec);
  auto fleet = Fleet::start(*spec);
  REQUIRE(fleet);
  auto bmcs = (*fleet)->bmcs();
  REQUIRE(bmcs.size() == 5);
  std::set<std::string> serials;
  for (const auto& bmc : bmcs) {
    serials.insert(bmc.identity.chassisSerial);
    json root = getJson(bmc, "/redfish/v1");
    REQUIRE(root.contains("Systems"));
    REQUIRE(sim::test::presentedFingerprint(bmc.address, bmc.port) == bmc.fingerprint);
  }
  REQUIRE(serials.size() == 5);
  REQUIRE((*fleet)->snapshot("r01-n01"));
}

TEST_CASE("Static mode serves a recorded dump unpersonalised", "[fleet]") {
  FleetSpec spec;
  // The recorded dump beside the checkout, else the shipped profile derived from it.
  spec.staticDumpDir = PROVISIONER_MOCKUPS_DIR "/dell";
  if (!std::filesystem::is_directory(spec.staticDumpDir)) {
    spec.staticDumpDir = PROVISIONER_TEST_SOURCE_DIR "/simulator/profiles/dell-r750.json";
  }
  spec.staticAddress = "127.28.1.1";
  spec.port = 0;
  spec.tls = false;
  auto fleet = Fleet::start(spec);
  REQUIRE(fleet);
  auto bmcs = (*fleet)->bmcs();
  REQUIRE(bmcs.size() == 1);
  REQUIRE(bmcs[0].id == "static");
  REQUIRE(getJson(bmcs[0], "/redfish/v1").contains("Systems"));
}

TEST_CASE("A fleet with an unknown profile does not start", "[fleet]") {
  auto spec = parseFleetSpec(json::parse(R"({"port": 0, "address_base": "127.28.2.1",
    "racks": [{"name": "r01", "nodes": 1, "profile": "no-such-profile"}]})"));
  REQUIRE(spec);
  REQUIRE_FALSE(Fleet::start(*spec));
}

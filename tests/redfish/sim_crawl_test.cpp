// The whole client (libcurl transport, sessions, TLS pinning, crawl) against the BMC simulator
// over HTTPS: what the crawl reports must be what each simulated BMC was personalised with.
#include <algorithm>
#include <set>

#include <catch2/catch.hpp>

#include "redfish/crawl.hpp"
#include "redfish/support/sim_fixture.hpp"
#include "simulator/bmc_model.hpp"

namespace {

std::set<std::string> gpuSerials(const redfish::Inventory& inventory) {
  std::set<std::string> serials;
  for (const auto& gpu : inventory.gpus) serials.insert(gpu.serialNumber);
  return serials;
}

bool hasChassisSerial(const redfish::Inventory& inventory, const std::string& serial) {
  return std::any_of(inventory.chassis.begin(), inventory.chassis.end(),
                     [&](const auto& c) { return c.serialNumber == serial; });
}

}  // namespace

TEST_CASE("Crawl of every simulated vendor profile over HTTPS reports the personalised identity",
          "[redfish][sim]") {
  for (const auto& profile : sim::profileNames()) {
    DYNAMIC_SECTION(profile) {
      auto sim = testing::SimFleet::start(testing::oneRack(profile, 2));
      for (const std::string id : {"r01-n01", "r01-n02"}) {
        auto bmc = sim.endpoint(id);
        auto client = sim.client(id);
        auto inventory = redfish::crawlInventory(client);
        REQUIRE(inventory.ok());
        CHECK(hasChassisSerial(*inventory, bmc.identity.chassisSerial));
        REQUIRE_FALSE(inventory->systems.empty());
        CHECK(inventory->systems.front().serialNumber == bmc.identity.systemSerial);
        CHECK_FALSE(inventory->firmware.empty());
        std::set<std::string> expected(bmc.identity.gpuSerials.begin(),
                                       bmc.identity.gpuSerials.end());
        CHECK(gpuSerials(*inventory) == expected);
        // The certificate was pinned on first contact and is the one the BMC presents.
        CHECK(client->certificateFingerprint() == bmc.fingerprint);
      }
      // One session per BMC for the whole crawl; iLO's intermittent 401s cost a re-login each.
      if (profile == "hpe-dl385") {
        CHECK(sim.transport->stats().logins >= 2);
      } else {
        CHECK(sim.transport->stats().logins == 2);
      }
    }
  }
}

TEST_CASE("Crawl of two simulated DGX nodes yields distinct GPU serials", "[redfish][sim]") {
  auto sim = testing::SimFleet::start(testing::oneRack("dgx-h100", 2));
  auto first = redfish::crawlInventory(sim.client("r01-n01"));
  auto second = redfish::crawlInventory(sim.client("r01-n02"));
  REQUIRE(first.ok());
  REQUIRE(second.ok());
  auto a = gpuSerials(*first);
  auto b = gpuSerials(*second);
  CHECK(a.size() == 8);
  CHECK(b.size() == 8);
  std::vector<std::string> common;
  std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(common));
  CHECK(common.empty());
}

TEST_CASE("A GPU link trained down to x8 shows in the crawled PCIe devices", "[redfish][sim]") {
  auto sim = testing::SimFleet::start(testing::oneRack("supermicro-hgx-h100", 1));
  sim.patchFaults("r01-n01", {{"pcie_down_trained", true}});
  auto inventory = redfish::crawlInventory(sim.client("r01-n01"));
  REQUIRE(inventory.ok());
  int downTrained = 0;
  for (const auto& device : inventory->pcieDevices) {
    if (device.currentLinkWidth && device.maxLinkWidth && *device.currentLinkWidth == 8 &&
        *device.maxLinkWidth == 16) {
      ++downTrained;
    }
  }
  CHECK(downTrained >= 8);
}

TEST_CASE("A chassis serial that differs from the order is what the crawl reports",
          "[redfish][sim]") {
  auto sim = testing::SimFleet::start(testing::oneRack("dell-r750", 1));
  sim.patchFaults("r01-n01", {{"chassis_serial", "WRONG-SERIAL-1"}});
  auto inventory = redfish::crawlInventory(sim.client("r01-n01"));
  REQUIRE(inventory.ok());
  CHECK(hasChassisSerial(*inventory, "WRONG-SERIAL-1"));
}

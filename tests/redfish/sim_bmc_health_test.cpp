// The out-of-band health read against the simulator over real sockets: a healthy DGX, then the
// health faults (docs/simulator.md) as the client reads them, and the fault's JSON form.
#include <algorithm>
#include <catch2/catch.hpp>

#include "redfish/bmc_health.hpp"
#include "redfish/support/sim_fixture.hpp"
#include "simulator/faults.hpp"

namespace {

const redfish::BmcGpuHealth& nthGpu(const redfish::BmcNodeHealth& health, const std::string& id) {
  auto it = std::find_if(health.gpus.begin(), health.gpus.end(),
                         [&](const redfish::BmcGpuHealth& g) { return g.id == id; });
  REQUIRE(it != health.gpus.end());
  return *it;
}

}  // namespace

TEST_CASE("the simulated DGX reports 8 healthy GPUs with sensors, and the injected faults",
          "[redfish][sim][bmc_health]") {
  auto sim = testing::SimFleet::start(testing::oneRack("dgx-h100", 1, false));
  auto healthy = redfish::readBmcHealth(*sim.client("r01-n01"));
  REQUIRE(healthy);
  CHECK(healthy->warnings.empty());
  REQUIRE(healthy->gpus.size() == 8);
  for (const auto& gpu : healthy->gpus) {
    CHECK(gpu.status.health == "OK");
    CHECK(gpu.lanesInUse == 16);
    CHECK(gpu.temperatureC.has_value());
    CHECK(gpu.powerW.has_value());
    CHECK(gpu.eccCorrected == 0u);
    CHECK_FALSE(gpu.serialNumber.empty());
  }
  REQUIRE(healthy->powerSupplies.size() == 6);

  sim.patchFaults(
      "r01-n01",
      {{"gpu_health", {{"gpu", 4}, {"health", "Critical"}, {"message", "HBM uncorrectable ECC"}}},
       {"gpu_off_bus", 3},
       {"psu_health", {{"psu", 2}, {"health", "Warning"}, {"message", "AC lost"}}}});
  auto degraded = redfish::readBmcHealth(*sim.client("r01-n01"));
  REQUIRE(degraded);
  const auto& fourth = nthGpu(*degraded, "GPU_SXM_4");
  CHECK(fourth.status.health == "Critical");
  CHECK(fourth.status.conditions == std::vector<std::string>{"HBM uncorrectable ECC"});
  CHECK(fourth.serialNumber == nthGpu(*healthy, "GPU_SXM_4").serialNumber);
  const auto& third = nthGpu(*degraded, "GPU_SXM_3");
  CHECK(third.lanesInUse == 0);
  CHECK(third.status.health == "OK");
  CHECK(nthGpu(*degraded, "GPU_SXM_5").lanesInUse == 16);
  REQUIRE(degraded->powerSupplies.size() == 6);
  CHECK(degraded->powerSupplies[1].status.health == "Warning");
  CHECK(degraded->powerSupplies[1].status.conditions == std::vector<std::string>{"AC lost"});
  CHECK(degraded->powerSupplies[0].status.health != "Warning");

  sim.patchFaults("r01-n01",
                  {{"gpu_health", nullptr}, {"gpu_off_bus", nullptr}, {"psu_health", nullptr}});
  auto cleared = redfish::readBmcHealth(*sim.client("r01-n01"));
  REQUIRE(cleared);
  CHECK(nthGpu(*cleared, "GPU_SXM_4").status.health == "OK");
  CHECK(nthGpu(*cleared, "GPU_SXM_3").lanesInUse == 16);
}

TEST_CASE("a PSU fault on a vendor whose supplies are a Power array marks that entry",
          "[redfish][sim][bmc_health]") {
  auto sim = testing::SimFleet::start(testing::oneRack("supermicro-hgx-h100", 1, false));
  sim.patchFaults("r01-n01", {{"psu_health", {{"psu", 3}, {"health", "Critical"}}},
                              {"gpu_off_bus", 2}});
  auto health = redfish::readBmcHealth(*sim.client("r01-n01"));
  REQUIRE(health);
  REQUIRE(health->powerSupplies.size() >= 4);
  CHECK(health->powerSupplies[2].status.health == "Critical");
  CHECK(health->powerSupplies[3].status.health == "OK");
  // Its GPUs are PCIe devices: the second one's link shows no lanes.
  REQUIRE(health->gpus.size() == 8);
  CHECK(health->gpus[1].source == "pcie_device");
  CHECK(health->gpus[1].lanesInUse == 0);
  CHECK(health->gpus[0].lanesInUse == 16);
}

TEST_CASE("health faults are refused with the member named", "[sim][faults][bmc_health]") {
  auto bad = [](const nlohmann::json& patch) {
    auto result = sim::applyFaultsJson({}, patch);
    REQUIRE_FALSE(result);
    return result.error().field;
  };
  CHECK(bad({{"gpu_off_bus", 0}}) == "gpu_off_bus");
  CHECK(bad({{"gpu_health", {{"gpu", 2}, {"health", "Bad"}}}}) == "gpu_health.health");
  CHECK(bad({{"psu_health", {{"gpu", 2}}}}) == "psu_health.gpu");
  CHECK(bad({{"gpu_health", "x"}}) == "gpu_health");
  auto ok = sim::applyFaultsJson({}, {{"gpu_health", {{"gpu", 2}, {"message", "m"}}}});
  REQUIRE(ok);
  REQUIRE(ok->behaviour.gpuHealth);
  CHECK(ok->behaviour.gpuHealth->index == 2);
  CHECK(ok->behaviour.gpuHealth->health == "Critical");
  CHECK(sim::faultsToJson(*ok)["gpu_health"]["gpu"] == 2);
}

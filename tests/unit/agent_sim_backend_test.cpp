#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "agent/sim_backend.hpp"

using nlohmann::json;

namespace {

std::unique_ptr<agent::SimulatedGpuBackend> makeSim(const json& config) {
  auto parsed = agent::parseSimConfig(config);
  REQUIRE(parsed.ok());
  auto sim = agent::SimulatedGpuBackend::create(std::move(parsed).value());
  REQUIRE(sim.ok());
  return std::move(sim).value();
}

json noFaults() {
  return json{{"model", "NVIDIA H100 80GB HBM3"},
              {"gpus", 8},
              {"seed", 7},
              {"noise", 0.01},
              {"host_serial", "SIM-0001"}};
}

json withFault(json fault) {
  json config = noFaults();
  config["faults"] = json::array({std::move(fault)});
  return config;
}

}  // namespace

TEST_CASE("agent sim discovers deterministic GPUs with serials and UUIDs", "[agent]") {
  auto sim = makeSim(noFaults());
  auto gpus = sim->discover();
  REQUIRE(gpus.ok());
  REQUIRE(gpus->size() == 8);
  CHECK((*gpus)[3].serial == "SIM-0001-GPU3");
  CHECK((*gpus)[3].uuid.starts_with("GPU-"));
  CHECK((*gpus)[3].uuid.size() == 40);
  CHECK((*gpus)[3].uuid != (*gpus)[4].uuid);
  CHECK((*gpus)[0].memory_mib == 81559);
  CHECK((*gpus)[0].pcie.current_width == 16);
  CHECK((*gpus)[0].pcie.current_gen == 5);
  CHECK(sim->driverVersion() == "580.95.05");
  REQUIRE(sim->nics().size() == 1);
  CHECK(sim->nics()[0].mac.starts_with("02:"));
  auto other = makeSim(noFaults());
  CHECK((*other->discover())[3].uuid == (*gpus)[3].uuid);
}

TEST_CASE("agent sim figures are near nominal and repeat for the same seed", "[agent]") {
  auto a = makeSim(noFaults());
  auto b = makeSim(noFaults());
  json other_seed = noFaults();
  other_seed["seed"] = 8;
  auto c = makeSim(other_seed);
  for (int gpu = 0; gpu < 8; ++gpu) {
    double value = *a->computeTflops(gpu, 10);
    CHECK(value == Approx(750).epsilon(0.05));
    CHECK(*b->computeTflops(gpu, 10) == value);
    CHECK(*c->computeTflops(gpu, 10) != value);
    CHECK(*a->hbmBandwidthGbps(gpu, 10) == Approx(2900).epsilon(0.05));
    CHECK(*a->pcieBandwidthGbps(gpu, true, 10) == Approx(55).epsilon(0.05));
    CHECK(*a->peerBandwidthGbps(gpu, (gpu + 1) % 8, 10) == Approx(370).epsilon(0.05));
  }
}

TEST_CASE("agent sim noise zero gives exactly nominal", "[agent]") {
  json config = noFaults();
  config["noise"] = 0;
  config["model"] = "NVIDIA A100-SXM4-80GB";
  auto sim = makeSim(config);
  CHECK(*sim->computeTflops(0, 1) == Approx(280));
  CHECK(*sim->pcieBandwidthGbps(0, false, 1) == Approx(25));
  CHECK((*sim->discover())[0].pcie.current_gen == 4);
}

TEST_CASE("agent sim low_hbm_bandwidth and slow_compute scale their GPU only", "[agent]") {
  json config = noFaults();
  config["noise"] = 0;
  config["faults"] = json::array({{{"gpu", 3}, {"kind", "low_hbm_bandwidth"}, {"factor", 0.7}},
                                  {{"gpu", 5}, {"kind", "slow_compute"}, {"factor", 0.9}}});
  auto sim = makeSim(config);
  CHECK(*sim->hbmBandwidthGbps(3, 1) == Approx(2030));
  CHECK(*sim->hbmBandwidthGbps(2, 1) == Approx(2900));
  CHECK(*sim->computeTflops(5, 1) == Approx(675));
  CHECK(*sim->computeTflops(3, 1) == Approx(750));
}

TEST_CASE("agent sim pcie_x8 halves bandwidth and reports the narrow link", "[agent]") {
  auto sim = makeSim(withFault({{"gpu", 4}, {"kind", "pcie_x8"}}));
  auto gpus = *sim->discover();
  CHECK(gpus[4].pcie.current_width == 8);
  CHECK(gpus[4].pcie.max_width == 16);
  CHECK(*sim->pcieBandwidthGbps(4, true, 1) == Approx(27.5).epsilon(0.05));
  CHECK(*sim->pcieBandwidthGbps(4, false, 1) == Approx(27.5).epsilon(0.05));
  CHECK(*sim->pcieBandwidthGbps(3, true, 1) == Approx(55).epsilon(0.05));
}

TEST_CASE("agent sim missing GPU is absent from discovery and refuses work", "[agent]") {
  auto sim = makeSim(withFault({{"gpu", 7}, {"kind", "missing"}}));
  auto gpus = *sim->discover();
  REQUIRE(gpus.size() == 7);
  for (const auto& gpu : gpus) CHECK(gpu.index != 7);
  CHECK(sim->computeTflops(7, 1).error().code == "gpu_not_found");
  CHECK_FALSE(sim->peerBandwidthGbps(6, 7, 1).ok());
}

TEST_CASE("agent sim ecc_errors appear after work on top of old counts", "[agent]") {
  auto sim = makeSim(withFault({{"gpu", 1}, {"kind", "ecc_errors"}, {"uncorrected", 2}}));
  auto before = *sim->sampleHealth(1);
  CHECK(before.ecc_uncorrected_total == 0);
  REQUIRE(sim->computeTflops(1, 1).ok());
  auto after = *sim->sampleHealth(1);
  CHECK(after.ecc_uncorrected_total == 2);
  CHECK(after.ecc_corrected_total == before.ecc_corrected_total);
  REQUIRE(sim->computeTflops(0, 1).ok());
  CHECK(sim->sampleHealth(0)->ecc_uncorrected_total == 0);
}

TEST_CASE("agent sim thermal_throttle reports hw_thermal at 92 C under load", "[agent]") {
  auto sim = makeSim(withFault({{"gpu", 2}, {"kind", "thermal_throttle"}}));
  REQUIRE(sim->computeTflops(2, 1).ok());
  auto hot = *sim->sampleHealth(2);
  CHECK(hot.temperature_c == 92);
  CHECK(hot.throttle_reasons == std::vector<std::string>{"hw_thermal"});
  REQUIRE(sim->computeTflops(1, 1).ok());
  auto normal = *sim->sampleHealth(1);
  CHECK(normal.temperature_c < 80);
  CHECK(normal.throttle_reasons.empty());
}

TEST_CASE("agent sim xid is reported once after work", "[agent]") {
  auto sim = makeSim(withFault({{"gpu", 6}, {"kind", "xid"}, {"code", 79}}));
  CHECK(sim->sampleHealth(6)->new_xid_events.empty());
  REQUIRE(sim->hbmBandwidthGbps(6, 1).ok());
  CHECK(sim->sampleHealth(6)->new_xid_events == std::vector<int>{79});
  CHECK(sim->sampleHealth(6)->new_xid_events.empty());
}

TEST_CASE("agent sim kernel_error fails the named test only", "[agent]") {
  auto sim = makeSim(withFault({{"gpu", 0}, {"kind", "kernel_error"}, {"test", "compute"}}));
  auto failed = sim->computeTflops(0, 1);
  REQUIRE_FALSE(failed.ok());
  CHECK(failed.error().code == "gpu_kernel_error");
  CHECK(sim->hbmBandwidthGbps(0, 1).ok());
}

TEST_CASE("agent sim config errors name the field", "[agent]") {
  auto fieldOf = [](const json& config) {
    auto parsed = agent::parseSimConfig(config);
    REQUIRE_FALSE(parsed.ok());
    CHECK(parsed.error().code == "invalid_sim_config");
    return parsed.error().field;
  };
  CHECK(fieldOf({{"gpus", 0}}) == "gpus");
  CHECK(fieldOf({{"gpus", 65}}) == "gpus");
  CHECK(fieldOf({{"model", "Voodoo 2"}}) == "model");
  CHECK(fieldOf({{"noise", -1}}) == "noise");
  CHECK(fieldOf({{"nics", json::array({{{"name", "eth0"}, {"mac", "zz"}}})}}) == "nics[0].mac");
  CHECK(fieldOf(withFault({{"gpu", 8}, {"kind", "missing"}})) == "faults[0].gpu");
  CHECK(fieldOf(withFault({{"gpu", 1}, {"kind", "melt"}})) == "faults[0].kind");
  CHECK(fieldOf(withFault({{"gpu", 1}, {"kind", "slow_compute"}})) == "faults[0].factor");
  CHECK(fieldOf(withFault({{"gpu", 1}, {"kind", "slow_compute"}, {"factor", 0}})) ==
        "faults[0].factor");
  CHECK(fieldOf(withFault({{"gpu", 1}, {"kind", "xid"}})) == "faults[0].code");
  CHECK_FALSE(agent::parseSimConfigText("{not json").ok());
  auto defaults = agent::parseSimConfigText("{}");
  REQUIRE(defaults.ok());
  CHECK(defaults->gpus == 8);
  CHECK(defaults->model == "NVIDIA H100 80GB HBM3");
}

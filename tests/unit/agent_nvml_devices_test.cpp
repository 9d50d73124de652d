// NVML facts and health through the loader, against the stand-in libnvidia-ml (two H100s, the
// second degraded).
#ifdef PROVISIONER_TEST_HAS_AGENT_CUDA

#include <catch2/catch.hpp>

#include "cuda/nvml_devices.hpp"

using agent::cuda::NvmlDevices;
using agent::cuda::NvmlLibrary;

namespace {

std::unique_ptr<NvmlDevices> openFake() {
  auto library = NvmlLibrary::load(PROVISIONER_TEST_FAKE_NVML);
  REQUIRE(library.ok());
  auto devices = NvmlDevices::open(std::move(library).value());
  REQUIRE(devices.ok());
  return std::move(devices).value();
}

}  // namespace

TEST_CASE("NVML facts carry serial UUID model memory PCIe link and ECC mode", "[nvml]") {
  auto devices = openFake();
  REQUIRE(devices->count() == 2);
  CHECK(devices->driverVersion() == "550.54.15");
  auto facts = devices->facts(1, 5);  // NVML device 1 reported as GPU 5
  REQUIRE(facts.ok());
  CHECK(facts->index == 5);
  CHECK(facts->serial == "1650123000002");
  CHECK(facts->uuid == "GPU-aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee");
  CHECK(facts->model == "NVIDIA H100 80GB HBM3");
  CHECK(facts->memory_mib == 81559);
  CHECK(facts->pcie.current_width == 8);
  CHECK(facts->pcie.max_width == 16);
  CHECK(facts->pcie.current_gen == 5);
  CHECK(facts->pcie.max_gen == 5);
  CHECK(facts->driver_version == "550.54.15");
  CHECK(facts->ecc_enabled);
}

TEST_CASE("NVML health reads ECC temperature throttling and drains XIDs once", "[nvml]") {
  auto devices = openFake();
  auto first = devices->health(1, 1);
  REQUIRE(first.ok());
  CHECK(first->ecc_corrected_total == 7);
  CHECK(first->ecc_uncorrected_total == 0);
  CHECK(first->temperature_c == 91);
  CHECK(first->throttle_reasons == std::vector<std::string>{"sw_power_cap", "hw_thermal"});
  CHECK(first->new_xid_events == std::vector<int>{79});
  auto second = devices->health(1, 1);
  REQUIRE(second.ok());
  CHECK(second->new_xid_events.empty());
}

TEST_CASE("NVML health of a quiet GPU never sees another GPU's XIDs", "[nvml]") {
  auto devices = openFake();
  auto quiet = devices->health(0, 0);
  REQUIRE(quiet.ok());
  CHECK(quiet->new_xid_events.empty());
  CHECK(quiet->temperature_c == 41);
  CHECK(quiet->throttle_reasons.empty());
  auto noisy = devices->health(1, 1);
  REQUIRE(noisy.ok());
  CHECK(noisy->new_xid_events == std::vector<int>{79});
}

TEST_CASE("NVML health carries what the resident monitor reports", "[nvml][monitor]") {
  auto devices = openFake();
  auto degraded = devices->health(1, 1);
  REQUIRE(degraded.ok());
  CHECK(degraded->clock_event_mask == (0x40 | 0x4 | 0x1));
  CHECK(degraded->power_w == Approx(612.5));
  CHECK(degraded->sm_clock_mhz == 1410);
  CHECK(degraded->ecc_corrected_aggregate == 107u);  // the volatile 7 and 100 from before
  CHECK(degraded->ecc_uncorrected_aggregate == 0u);
  CHECK(degraded->remapped_correctable == 3u);
  CHECK(degraded->remap_pending);
  CHECK_FALSE(degraded->remap_failure);
  CHECK_FALSE(degraded->retired_pages.has_value());  // not supported on an H100
  CHECK(degraded->nvlink_crc_errors == 18u);         // 9 even links, 2 each
  CHECK(degraded->nvlink_replay_errors == 0u);
  CHECK(degraded->hbm_temperature_c == 95);  // a field value, as NVML gives it
  CHECK(degraded->mem_clock_mhz == 2619);
  CHECK(degraded->pcie_replay_errors == 12u);
  CHECK(degraded->gpu_utilization_pct == 100);
  CHECK(degraded->pcie_correctable_errors == 41u);  // field values, one call with the HBM's
  CHECK(degraded->pcie_nonfatal_errors == 2u);
  CHECK(degraded->pcie_fatal_errors == 0u);
  auto healthy = devices->health(0, 0);
  REQUIRE(healthy.ok());
  CHECK(healthy->power_w == Approx(71.25));
  CHECK(healthy->hbm_temperature_c == 38);
  CHECK(healthy->pcie_replay_errors == 0u);
  CHECK(healthy->gpu_utilization_pct == 3);
  CHECK(healthy->pcie_correctable_errors == 0u);
  CHECK(healthy->remapped_correctable == 0u);
  CHECK_FALSE(healthy->remap_pending);
}

#endif  // PROVISIONER_TEST_HAS_AGENT_CUDA

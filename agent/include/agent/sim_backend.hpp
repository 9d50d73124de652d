// The simulated GPU backend: figures drawn around the nominal ones (seeded, deterministic) with
// injectable faults, for tests, the simulator's nodes and demos without GPUs.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "agent/drives_sim.hpp"
#include "agent/gpu_backend.hpp"
#include "agent/nominal.hpp"
#include "common/result.hpp"

namespace agent {

// One injected fault. Kinds: "low_hbm_bandwidth" (factor), "slow_compute" (factor),
// "low_peer_bandwidth" (factor, on copies from this GPU), "ecc_errors" (corrected, uncorrected:
// appear once the GPU has worked), "thermal_throttle" (92 C and "hw_thermal" under load),
// "missing" (absent from discover()), "pcie_x8" (x8 of x16, half the PCIe bandwidth),
// "xid" (code: reported once under load), "kernel_error" (test, or every test when empty: the
// backend call fails, as a CUDA error would). Slow degradation, for the resident monitor: days
// are counted from the backend's first health reading on its clock (setClock):
// "ecc_growth" (per_day: corrected ECC errors a day at first, the rate rising by as much each
// day; every 500 of them remap a row), "temperature_creep" (per_day: degrees C hotter each day
// under load). For the reset at idle: "remap_pending" (a row remap waits for the next reset:
// reported from after_days on until resetGpu), "reset_fails" (resetGpu fails, as a GPU still in
// use would). For an RMA: "remap_failure" (a row remap failed, from after_days on).
struct SimFault {
  int gpu = 0;
  std::string kind;
  double factor = 1;
  std::uint64_t corrected = 0;
  std::uint64_t uncorrected = 0;
  std::uint64_t count = 0;  // "stuck_bits": mismatching words per verify
  int code = 0;
  std::string test;
  double per_day = 0;     // "ecc_growth", "temperature_creep"
  double after_days = 0;  // "remap_pending", "remap_failure": days in service before it shows
};

struct SimConfig {
  std::string model = "NVIDIA H100 80GB HBM3";
  int gpus = 8;
  std::uint64_t seed = 1;
  double noise = 0.01;  // relative standard deviation of every figure
  std::string host_serial = "SIM-0001";
  std::string driver_version = "580.95.05";
  double time_scale = 0;  // each test really waits duration * time_scale seconds
  // A node in service: health readings are those of a busy GPU even before any test ran here.
  bool in_service_load = false;
  std::vector<NicFacts> nics;  // one derived from host_serial when the config names none
  std::vector<SimFault> faults;
  // What discover() reports for GPU i when given (the simulator passes what its BMC reports);
  // GPUs past the end get "<host_serial>-GPU<i>" and a UUID derived from the serial.
  std::vector<std::string> gpu_serials;
  std::vector<std::string> gpu_uuids;
  // Simulated NVMe drives (agent/drives_sim.hpp): "drives", "drive_capacity_bytes",
  // "drive_serials" (past the end "<host_serial>-NVME<i>"), "drive_faults" [{"drive", "kind"}].
  int drives = 2;
  std::uint64_t drive_capacity_bytes = 1ULL << 30;
  std::vector<std::string> drive_serials;
  std::vector<SimDriveFault> drive_faults;
};

// The drive half of a simulated host, from its config.
SimDriveConfig simDriveConfigOf(const SimConfig& config);

// InvalidArgument "invalid_sim_config" naming the field ("faults[1].gpu").
common::Result<SimConfig> parseSimConfig(const nlohmann::json& object);
common::Result<SimConfig> parseSimConfigText(std::string_view text);

class SimulatedGpuBackend : public GpuBackend {
 public:
  // Fails when the model has no nominal figures (the simulation draws around them).
  static common::Result<std::unique_ptr<SimulatedGpuBackend>> create(SimConfig config);

  std::string name() const override { return "simulated"; }
  std::string driverVersion() const override { return config_.driver_version; }
  common::Result<std::vector<GpuFacts>> discover() override;
  common::Result<double> computeTflops(int index, double seconds) override;
  common::Result<double> hbmBandwidthGbps(int index, double seconds) override;
  common::Result<double> pcieBandwidthGbps(int index, bool host_to_device, double seconds) override;
  common::Result<double> peerBandwidthGbps(int from, int to, double seconds) override;
  common::Result<HealthSample> sampleHealth(int index) override;
  // Wipe faults: "stuck_bits" (count: mismatches the pattern and random verifies find),
  // "off_bus_mid_wipe" (the random pass errors; every later call on that GPU fails),
  // "less_memory" (factor: covered bytes are that fraction of the usual). Figures come from
  // memory_mib and 0.9 x the model's nominal HBM bandwidth; nothing sleeps.
  common::Result<GpuWipeReport> wipeMemory(int index, const WipePlan& plan) override;
  // Applies a pending remap ("remap_pending" is no longer reported); nothing sleeps. The
  // simulated volatile counters are left as they are.
  common::Result<void> resetGpu(int index) override;
  int resets(int index) const { return state_.at(static_cast<std::size_t>(index)).resets; }

  const SimConfig& config() const { return config_; }
  // The clock the slow degradation faults count days on (default: the system's).
  void setClock(std::function<std::chrono::system_clock::time_point()> now) {
    now_ = std::move(now);
  }
  // The host's simulated drives, which a wipe task erases beside the GPUs.
  SimulatedDriveBackend& drives() { return *drives_; }
  const std::string& hostSerial() const { return config_.host_serial; }
  const std::vector<NicFacts>& nics() const { return config_.nics; }

 private:
  struct GpuState {
    bool worked = false;  // faults that show under load appear once this is set
    bool xid_reported = false;
    std::uint64_t draws = 0;     // noise draws so far: each figure gets a fresh, seeded one
    bool off_bus = false;        // "off_bus_mid_wipe" struck: the GPU no longer answers
    int resets = 0;              // resetGpu() calls that went through
    bool remap_applied = false;  // a reset went through while a remap was pending
  };

  SimulatedGpuBackend(SimConfig config, NominalFigures nominal);
  const SimFault* fault(int index, std::string_view kind) const;
  common::Result<void> checkPresent(int index) const;
  common::Result<double> measure(int index, std::string_view test, double nominal, double factor,
                                 double seconds);
  double gaussian(int index);
  double daysInService();
  bool faultShows(int index, std::string_view kind);  // present, and its after_days passed
  void degrade(int index, bool loaded, HealthSample& sample);
  void fillMonitorFields(int index, bool loaded, HealthSample& sample) const;

  SimConfig config_;
  NominalFigures nominal_;
  std::vector<GpuState> state_;
  std::unique_ptr<SimulatedDriveBackend> drives_;
  std::function<std::chrono::system_clock::time_point()> now_;
  std::optional<std::chrono::system_clock::time_point> first_reading_;
};

}  // namespace agent

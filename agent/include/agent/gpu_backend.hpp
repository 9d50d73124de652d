// The agent's GPU backend: what it needs from the GPUs, with a real (CUDA + NVML) and a simulated
// implementation.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "agent/protocol.hpp"
#include "common/result.hpp"

namespace agent {

// Counters sampled by the health watch (NVML on real GPUs).
struct HealthSample {
  std::uint64_t ecc_corrected_total = 0;  // volatile: since the driver loaded
  std::uint64_t ecc_uncorrected_total = 0;
  std::vector<int> new_xid_events;  // since the previous sample
  int temperature_c = 0;
  std::vector<std::string> throttle_reasons;
  // The same reasons as NVML's bitmask (nvmlClocksEventReason*), what the health history stores.
  std::uint64_t clock_event_mask = 0;
  // What the resident monitor reports besides; empty where the GPU or its driver has none.
  std::optional<double> power_w;
  std::optional<int> sm_clock_mhz;
  std::optional<std::uint64_t> ecc_corrected_aggregate;  // lifetime, in the InfoROM
  std::optional<std::uint64_t> ecc_uncorrected_aggregate;
  std::optional<std::uint64_t> remapped_correctable;  // HBM rows remapped (Ampere and later)
  std::optional<std::uint64_t> remapped_uncorrectable;
  bool remap_pending = false;                      // a remap waits for the next GPU reset
  bool remap_failure = false;                      // a remap failed: the GPU needs replacing
  std::optional<std::uint64_t> retired_pages;      // older GPUs' equivalent of row remapping
  std::optional<std::uint64_t> nvlink_crc_errors;  // summed over the links
  std::optional<std::uint64_t> nvlink_replay_errors;
  std::optional<std::uint64_t> nvlink_recovery_errors;
  std::optional<int> hbm_temperature_c;  // the memory's own sensor (HBM GPUs)
  std::optional<int> mem_clock_mhz;
  std::optional<std::uint64_t> pcie_replay_errors;  // since the driver loaded
  std::optional<int> gpu_utilization_pct;           // kernels running, last sample period
  // PCIe errors the GPU's link logged (NVML field values; drivers from R550).
  std::optional<std::uint64_t> pcie_correctable_errors;
  std::optional<std::uint64_t> pcie_nonfatal_errors;
  std::optional<std::uint64_t> pcie_fatal_errors;
};

class GpuBackend {
 public:
  virtual ~GpuBackend() = default;
  virtual std::string name() const = 0;  // "cuda", "simulated"
  virtual std::string driverVersion() const = 0;
  virtual common::Result<std::vector<GpuFacts>> discover() = 0;
  // Each runs for about `seconds` on GPU `index` and returns the sustained figure.
  virtual common::Result<double> computeTflops(int index, double seconds) = 0;
  virtual common::Result<double> hbmBandwidthGbps(int index, double seconds) = 0;
  virtual common::Result<double> pcieBandwidthGbps(int index, bool host_to_device,
                                                   double seconds) = 0;
  virtual common::Result<double> peerBandwidthGbps(int from, int to, double seconds) = 0;
  virtual common::Result<HealthSample> sampleHealth(int index) = 0;
  // Wipes GPU `index`'s memory (pattern, random, zero passes, each verified) and resets it when the
  // plan asks. A GPU that fails mid-wipe returns a report with `error` set and the passes it ran;
  // an Error means nothing was attempted. The default: this backend cannot wipe.
  virtual common::Result<GpuWipeReport> wipeMemory(int index, const WipePlan& plan);
  // Resets GPU `index` (the resident monitor's reset at idle: a pending row remap takes effect,
  // the volatile counters restart). The default: Unavailable "reset_not_supported".
  virtual common::Result<void> resetGpu(int index);
};

}  // namespace agent

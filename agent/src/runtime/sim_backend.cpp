#include "agent/sim_backend.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numbers>
#include <thread>

#include "common/secret_box.hpp"

namespace agent {

using common::Result;

namespace {

constexpr int kIdleTemperatureC = 35;
constexpr int kLoadedTemperatureC = 62;
constexpr int kThrottledTemperatureC = 92;
// nvmlClocksEventReasonHwThermalSlowdown, the bit a thermally throttled GPU reports.
constexpr std::uint64_t kHwThermalSlowdownBit = 0x40;
constexpr double kIdlePowerW = 72;
constexpr double kLoadedPowerW = 640;
constexpr int kIdleSmClockMhz = 345;
constexpr int kSmClockMhz = 1980;
constexpr int kThrottledSmClockMhz = 1410;
constexpr int kMemClockMhz = 2619;  // H100 SXM HBM3
constexpr std::uint64_t kErrorsPerRemap = 500;

// SplitMix64: a well-mixed 64-bit hash, so each (seed, GPU, draw) gets an independent stream.
std::uint64_t mix(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

double unitInterval(std::uint64_t bits) {
  return (static_cast<double>(bits >> 11) + 0.5) / 9007199254740992.0;  // (0, 1), 53 bits
}

// "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", the shape NVML reports, from the serial.
std::string uuidFor(const std::string& serial) {
  std::string hex = common::sha256Hex("uuid:" + serial);
  return "GPU-" + hex.substr(0, 8) + "-" + hex.substr(8, 4) + "-" + hex.substr(12, 4) + "-" +
         hex.substr(16, 4) + "-" + hex.substr(20, 12);
}

bool isAmpere(const NominalFigures& nominal) {
  return nominal.model_key.starts_with("a100");
}

void simulateDuration(double seconds, double time_scale) {
  double wait = seconds * time_scale;
  if (wait > 0) std::this_thread::sleep_for(std::chrono::duration<double>(wait));
}

}  // namespace

Result<std::unique_ptr<SimulatedGpuBackend>> SimulatedGpuBackend::create(SimConfig config) {
  auto nominal = nominalFor(config.model);
  if (!nominal) {
    return common::invalidArgument("invalid_sim_config",
                                   "no nominal figures for model '" + config.model + "'", "model");
  }
  if (config.gpus < 1 || config.gpus > 64) {
    return common::invalidArgument("invalid_sim_config", "gpus must be in [1, 64]", "gpus");
  }
  return std::unique_ptr<SimulatedGpuBackend>(
      new SimulatedGpuBackend(std::move(config), std::move(*nominal)));
}

SimulatedGpuBackend::SimulatedGpuBackend(SimConfig config, NominalFigures nominal)
    : config_(std::move(config)),
      nominal_(std::move(nominal)),
      state_(static_cast<std::size_t>(config_.gpus)),
      drives_(std::make_unique<SimulatedDriveBackend>(simDriveConfigOf(config_))) {}

SimDriveConfig simDriveConfigOf(const SimConfig& config) {
  SimDriveConfig drives;
  drives.count = config.drives;
  drives.host_serial = config.host_serial;
  drives.serials = config.drive_serials;
  drives.capacity_bytes = config.drive_capacity_bytes;
  drives.faults = config.drive_faults;
  return drives;
}

const SimFault* SimulatedGpuBackend::fault(int index, std::string_view kind) const {
  for (const auto& f : config_.faults) {
    if (f.gpu == index && f.kind == kind) return &f;
  }
  return nullptr;
}

Result<void> SimulatedGpuBackend::checkPresent(int index) const {
  if (index < 0 || index >= config_.gpus || fault(index, "missing") != nullptr) {
    return common::notFound("gpu_not_found", "GPU " + std::to_string(index) + " is not present");
  }
  if (state_[static_cast<std::size_t>(index)].off_bus) {
    return common::unavailable("gpu_off_bus", "GPU " + std::to_string(index) + " fell off the bus");
  }
  return common::success();
}

double SimulatedGpuBackend::gaussian(int index) {
  GpuState& state = state_[static_cast<std::size_t>(index)];
  std::uint64_t stream = mix(mix(config_.seed) ^ mix(static_cast<std::uint64_t>(index) + 1));
  std::uint64_t draw = state.draws++;
  double u1 = unitInterval(mix(stream ^ (2 * draw)));
  double u2 = unitInterval(mix(stream ^ (2 * draw + 1)));
  double z = std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);  // Box-Muller
  return std::clamp(z, -4.0, 4.0);
}

Result<double> SimulatedGpuBackend::measure(int index, std::string_view test, double nominal,
                                            double factor, double seconds) {
  PROV_TRY(checkPresent(index));
  for (const auto& f : config_.faults) {
    if (f.gpu == index && f.kind == "kernel_error" && (f.test.empty() || f.test == test)) {
      return common::Error{common::ErrorKind::kInternal,
                           "gpu_kernel_error",
                           std::string(test) + " kernel failed on GPU " + std::to_string(index) +
                               " (simulated CUDA error: an illegal memory access was encountered)",
                           {},
                           {}};
    }
  }
  simulateDuration(seconds, config_.time_scale);
  state_[static_cast<std::size_t>(index)].worked = true;
  double value = nominal * factor * (1.0 + config_.noise * gaussian(index));
  return std::max(value, 0.0);
}

Result<std::vector<GpuFacts>> SimulatedGpuBackend::discover() {
  std::vector<GpuFacts> gpus;
  int gen = isAmpere(nominal_) ? 4 : 5;
  for (int i = 0; i < config_.gpus; ++i) {
    if (fault(i, "missing") != nullptr) continue;
    GpuFacts gpu;
    gpu.index = i;
    const auto at = static_cast<std::size_t>(i);
    gpu.serial = at < config_.gpu_serials.size() ? config_.gpu_serials[at]
                                                 : config_.host_serial + "-GPU" + std::to_string(i);
    gpu.uuid = at < config_.gpu_uuids.size() ? config_.gpu_uuids[at] : uuidFor(gpu.serial);
    gpu.model = config_.model;
    gpu.memory_mib = nominal_.memory_mib;
    gpu.pcie = PcieLink{fault(i, "pcie_x8") != nullptr ? 8 : 16, 16, gen, gen};
    gpu.driver_version = config_.driver_version;
    gpu.ecc_enabled = true;
    gpus.push_back(std::move(gpu));
  }
  return gpus;
}

Result<double> SimulatedGpuBackend::computeTflops(int index, double seconds) {
  const SimFault* slow = fault(index, "slow_compute");
  return measure(index, kTestCompute, nominal_.compute_tflops, slow ? slow->factor : 1, seconds);
}

Result<double> SimulatedGpuBackend::hbmBandwidthGbps(int index, double seconds) {
  const SimFault* low = fault(index, "low_hbm_bandwidth");
  return measure(index, kTestHbmBandwidth, nominal_.hbm_gbps, low ? low->factor : 1, seconds);
}

Result<double> SimulatedGpuBackend::pcieBandwidthGbps(int index, bool host_to_device,
                                                      double seconds) {
  double factor = fault(index, "pcie_x8") != nullptr ? 0.5 : 1;  // half the lanes
  return host_to_device ? measure(index, kTestPcieH2D, nominal_.pcie_h2d_gbps, factor, seconds)
                        : measure(index, kTestPcieD2H, nominal_.pcie_d2h_gbps, factor, seconds);
}

Result<double> SimulatedGpuBackend::peerBandwidthGbps(int from, int to, double seconds) {
  PROV_TRY(checkPresent(to));
  const SimFault* low = fault(from, "low_peer_bandwidth");
  return measure(from, kTestPeerBandwidth, nominal_.peer_gbps, low ? low->factor : 1, seconds);
}

Result<HealthSample> SimulatedGpuBackend::sampleHealth(int index) {
  PROV_TRY(checkPresent(index));
  GpuState& state = state_[static_cast<std::size_t>(index)];
  const bool loaded = state.worked || config_.in_service_load;
  HealthSample sample;
  // Some corrected errors from before the run, so that consumers must take deltas.
  sample.ecc_corrected_total = static_cast<std::uint64_t>(index);
  sample.temperature_c = kIdleTemperatureC;
  if (loaded) {
    if (const SimFault* ecc = fault(index, "ecc_errors")) {
      sample.ecc_corrected_total += ecc->corrected;
      sample.ecc_uncorrected_total += ecc->uncorrected;
    }
    const SimFault* xid = fault(index, "xid");
    if (xid != nullptr && !state.xid_reported) {
      sample.new_xid_events.push_back(xid->code);
      state.xid_reported = true;
    }
    if (fault(index, "thermal_throttle") != nullptr) {
      sample.temperature_c = kThrottledTemperatureC;
      sample.throttle_reasons.emplace_back("hw_thermal");
      sample.clock_event_mask = kHwThermalSlowdownBit;
    } else {
      sample.temperature_c =
          kLoadedTemperatureC + static_cast<int>(std::lround(2 * gaussian(index)));
    }
  }
  degrade(index, loaded, sample);
  fillMonitorFields(index, loaded, sample);
  sample.remap_pending = faultShows(index, "remap_pending") && !state.remap_applied;
  sample.remap_failure = faultShows(index, "remap_failure");
  return sample;
}

bool SimulatedGpuBackend::faultShows(int index, std::string_view kind) {
  const SimFault* f = fault(index, kind);
  return f != nullptr && (f->after_days <= 0 || daysInService() >= f->after_days);
}

Result<void> SimulatedGpuBackend::resetGpu(int index) {
  PROV_TRY(checkPresent(index));
  if (fault(index, "reset_fails") != nullptr) {
    return common::fail(common::unavailable(
        "reset_failed", "GPU " + std::to_string(index) + " is in use: the reset was refused"));
  }
  GpuState& state = state_[static_cast<std::size_t>(index)];
  if (faultShows(index, "remap_pending")) state.remap_applied = true;
  ++state.resets;
  return common::success();
}

double SimulatedGpuBackend::daysInService() {
  const auto now = now_ ? now_() : std::chrono::system_clock::now();
  if (!first_reading_) first_reading_ = now;
  return std::chrono::duration<double, std::ratio<86400>>(now - *first_reading_).count();
}

void SimulatedGpuBackend::degrade(int index, bool loaded, HealthSample& sample) {
  const SimFault* ecc = fault(index, "ecc_growth");
  const SimFault* creep = fault(index, "temperature_creep");
  if (ecc == nullptr && creep == nullptr) return;
  const double days = daysInService();
  if (ecc != nullptr) {
    // A rate that rises by per_day each day: the integral of per_day * (1 + t).
    sample.ecc_corrected_total +=
        static_cast<std::uint64_t>(ecc->per_day * (days + days * days / 2));
  }
  if (creep != nullptr && loaded) {
    sample.temperature_c += static_cast<int>(std::lround(creep->per_day * days));
  }
}

// Power and clocks of an idle or a busy H100, the InfoROM's counts (the volatile ones plus what
// earlier driver loads saw), rows remapped by ECC growth, quiet NVLinks. No noise draws: the
// burn-in's figures keep their seeded streams.
void SimulatedGpuBackend::fillMonitorFields(int index, bool loaded, HealthSample& sample) const {
  const bool throttled = sample.clock_event_mask != 0;
  sample.power_w = loaded ? kLoadedPowerW + 4.0 * index : kIdlePowerW;
  sample.sm_clock_mhz = !loaded ? kIdleSmClockMhz : throttled ? kThrottledSmClockMhz : kSmClockMhz;
  sample.ecc_corrected_aggregate = sample.ecc_corrected_total + 10u * static_cast<unsigned>(index);
  sample.ecc_uncorrected_aggregate = sample.ecc_uncorrected_total;
  sample.remapped_correctable =
      fault(index, "ecc_growth") != nullptr ? sample.ecc_corrected_total / kErrorsPerRemap : 0;
  sample.remapped_uncorrectable = 0;
  sample.nvlink_crc_errors = 0;
  sample.nvlink_replay_errors = 0;
  sample.nvlink_recovery_errors = 0;
  // HBM runs a few degrees above the die under load (and follows it when it creeps).
  sample.hbm_temperature_c = sample.temperature_c + (loaded ? 6 : 2);
  sample.mem_clock_mhz = kMemClockMhz;
  sample.pcie_replay_errors = 0;
  sample.pcie_correctable_errors = 0;
  sample.pcie_nonfatal_errors = 0;
  sample.pcie_fatal_errors = 0;
  sample.gpu_utilization_pct = loaded ? 98 : 0;
}

}  // namespace agent

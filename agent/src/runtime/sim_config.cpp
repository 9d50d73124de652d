// Parsing the simulated backend's JSON configuration.
#include <nlohmann/json.hpp>

#include "agent/sim_backend.hpp"
#include "common/mac_address.hpp"
#include "common/secret_box.hpp"
#include "protocol/json_fields.hpp"

namespace agent {

using common::Result;
using json_fields::Need;
using json_fields::ObjectReader;

namespace {

constexpr const char* kInvalidConfig = "invalid_sim_config";
constexpr int kMaxGpus = 64;
constexpr std::size_t kMaxFaults = 256;
constexpr int kMaxDrives = 32;
constexpr std::uint64_t kMinDriveBytes = 1ULL << 20;
constexpr std::uint64_t kMaxDriveBytes = 1ULL << 44;

bool isKnownFault(std::string_view kind) {
  for (std::string_view known :
       {"low_hbm_bandwidth", "slow_compute", "low_peer_bandwidth", "ecc_errors", "thermal_throttle",
        "missing", "pcie_x8", "xid", "kernel_error", "stuck_bits", "off_bus_mid_wipe",
        "less_memory", "ecc_growth", "temperature_creep", "remap_pending", "reset_fails",
        "remap_failure"}) {
    if (kind == known) return true;
  }
  return false;
}

bool takesFactor(std::string_view kind) {
  return kind == "low_hbm_bandwidth" || kind == "slow_compute" || kind == "low_peer_bandwidth" ||
         kind == "less_memory";
}

Result<SimFault> parseFault(const nlohmann::json& value, std::string path, int gpus) {
  ObjectReader reader(value, std::move(path), kInvalidConfig);
  PROV_TRY(reader.requireObject());
  SimFault fault;
  PROV_TRY(reader.readInt("gpu", fault.gpu, 0, gpus - 1, Need::kRequired));
  PROV_TRY(reader.readString("kind", fault.kind, Need::kRequired));
  if (!isKnownFault(fault.kind)) return reader.error("kind", "unknown fault '" + fault.kind + "'");
  if (takesFactor(fault.kind)) {
    PROV_TRY(reader.readDouble("factor", fault.factor, 0, 1, Need::kRequired));
    if (fault.factor <= 0) return reader.error("factor", "must be in (0, 1]");
  }
  if (fault.kind == "ecc_errors") {
    PROV_TRY(reader.readUnsigned("corrected", fault.corrected, Need::kOptional, 1ULL << 40));
    PROV_TRY(reader.readUnsigned("uncorrected", fault.uncorrected, Need::kOptional, 1ULL << 40));
  }
  if (fault.kind == "stuck_bits") {
    PROV_TRY(reader.readUnsigned("count", fault.count, Need::kRequired, 1ULL << 40));
  }
  if (fault.kind == "xid") PROV_TRY(reader.readInt("code", fault.code, 1, 1000, Need::kRequired));
  if (fault.kind == "ecc_growth" || fault.kind == "temperature_creep") {
    PROV_TRY(reader.readDouble("per_day", fault.per_day, 0, 1e6, Need::kRequired));
  }
  if (fault.kind == "remap_pending" || fault.kind == "remap_failure") {
    PROV_TRY(reader.readDouble("after_days", fault.after_days, 0, 3650, Need::kOptional));
  }
  if (fault.kind == "kernel_error") {
    PROV_TRY(reader.readString("test", fault.test, Need::kOptional));
    if (!fault.test.empty() && !isKnownTest(fault.test)) {
      return reader.error("test", "unknown test '" + fault.test + "'");
    }
  }
  return fault;
}

Result<SimDriveFault> parseDriveFault(const nlohmann::json& value, std::string path, int drives) {
  ObjectReader reader(value, std::move(path), kInvalidConfig);
  PROV_TRY(reader.requireObject());
  SimDriveFault fault;
  PROV_TRY(reader.readInt("drive", fault.drive, 0, drives - 1, Need::kRequired));
  PROV_TRY(reader.readString("kind", fault.kind, Need::kRequired));
  if (!isKnownDriveFault(fault.kind)) {
    return reader.error("kind", "unknown drive fault '" + fault.kind + "'");
  }
  return fault;
}

Result<void> readDrives(const ObjectReader& reader, SimConfig& config) {
  PROV_TRY(reader.readInt("drives", config.drives, 0, kMaxDrives, Need::kOptional));
  PROV_TRY(reader.readUnsigned("drive_capacity_bytes", config.drive_capacity_bytes, Need::kOptional,
                               kMaxDriveBytes));
  if (config.drive_capacity_bytes < kMinDriveBytes || config.drive_capacity_bytes % 4096 != 0) {
    return reader.error("drive_capacity_bytes", "must be a multiple of 4096 of at least 1 MiB");
  }
  PROV_ASSIGN(const nlohmann::json* faults,
              reader.readArray("drive_faults", kMaxFaults, Need::kOptional));
  for (std::size_t i = 0; faults != nullptr && i < faults->size(); ++i) {
    PROV_ASSIGN(auto fault,
                parseDriveFault((*faults)[i], reader.pathOf("drive_faults", i), config.drives));
    config.drive_faults.push_back(std::move(fault));
  }
  return common::success();
}

Result<NicFacts> parseNic(const nlohmann::json& value, std::string path) {
  ObjectReader reader(value, std::move(path), kInvalidConfig);
  PROV_TRY(reader.requireObject());
  NicFacts nic;
  std::string mac;
  PROV_TRY(reader.readString("name", nic.name, Need::kRequired, /*allow_empty=*/false));
  PROV_TRY(reader.readString("mac", mac, Need::kRequired, /*allow_empty=*/false));
  auto normalized = common::normalizeMac(mac);
  if (!normalized) return reader.error("mac", "is not a MAC address");
  nic.mac = std::move(normalized).value();
  return nic;
}

// A locally administered MAC derived from the host serial, so each simulated host differs.
NicFacts defaultNic(const std::string& host_serial) {
  std::string hex = common::sha256Hex("nic:" + host_serial);
  std::string mac = "02";
  for (int i = 0; i < 5; ++i) mac += ":" + hex.substr(static_cast<std::size_t>(i) * 2, 2);
  return NicFacts{"enp1s0f0", mac};
}

Result<void> readScalars(const ObjectReader& reader, SimConfig& config) {
  PROV_TRY(reader.readString("model", config.model, Need::kOptional, /*allow_empty=*/false));
  PROV_TRY(reader.readInt("gpus", config.gpus, 1, kMaxGpus, Need::kOptional));
  PROV_TRY(reader.readUnsigned("seed", config.seed, Need::kOptional));
  PROV_TRY(reader.readDouble("noise", config.noise, 0, 0.5, Need::kOptional));
  PROV_TRY(reader.readString("host_serial", config.host_serial, Need::kOptional, false));
  PROV_TRY(reader.readString("driver_version", config.driver_version, Need::kOptional));
  PROV_TRY(reader.readDouble("time_scale", config.time_scale, 0, 10, Need::kOptional));
  PROV_TRY(reader.readBool("in_service_load", config.in_service_load, Need::kOptional));
  if (!nominalFor(config.model)) {
    return reader.error("model", "no nominal figures for '" + config.model + "'");
  }
  return common::success();
}

// An optional array of at most `gpus` non-empty strings ("gpu_serials", "gpu_uuids",
// "drive_serials" with the drive count).
Result<void> readStrings(const ObjectReader& reader, std::string_view key, int gpus,
                         std::vector<std::string>& out) {
  PROV_ASSIGN(const nlohmann::json* values,
              reader.readArray(key, static_cast<std::size_t>(gpus), Need::kOptional));
  for (std::size_t i = 0; values != nullptr && i < values->size(); ++i) {
    const nlohmann::json& value = (*values)[i];
    if (!value.is_string() || value.get_ref<const std::string&>().empty() ||
        value.get_ref<const std::string&>().size() > json_fields::kMaxStringLength) {
      return common::invalidArgument(kInvalidConfig,
                                     reader.pathOf(key, i) + " must be a non-empty string",
                                     reader.pathOf(key, i));
    }
    out.push_back(value.get<std::string>());
  }
  return common::success();
}

}  // namespace

Result<SimConfig> parseSimConfig(const nlohmann::json& object) {
  ObjectReader reader(object, "", kInvalidConfig);
  PROV_TRY(reader.requireObject());
  SimConfig config;
  PROV_TRY(readScalars(reader, config));
  PROV_ASSIGN(const nlohmann::json* nics, reader.readArray("nics", 64, Need::kOptional));
  if (nics == nullptr) config.nics.push_back(defaultNic(config.host_serial));
  for (std::size_t i = 0; nics != nullptr && i < nics->size(); ++i) {
    PROV_ASSIGN(auto nic, parseNic((*nics)[i], reader.pathOf("nics", i)));
    config.nics.push_back(std::move(nic));
  }
  PROV_ASSIGN(const nlohmann::json* faults,
              reader.readArray("faults", kMaxFaults, Need::kOptional));
  for (std::size_t i = 0; faults != nullptr && i < faults->size(); ++i) {
    PROV_ASSIGN(auto fault, parseFault((*faults)[i], reader.pathOf("faults", i), config.gpus));
    config.faults.push_back(std::move(fault));
  }
  PROV_TRY(readStrings(reader, "gpu_serials", config.gpus, config.gpu_serials));
  PROV_TRY(readStrings(reader, "gpu_uuids", config.gpus, config.gpu_uuids));
  PROV_TRY(readDrives(reader, config));
  PROV_TRY(readStrings(reader, "drive_serials", config.drives, config.drive_serials));
  return config;
}

Result<SimConfig> parseSimConfigText(std::string_view text) {
  auto object = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (object.is_discarded()) {
    return common::invalidArgument(kInvalidConfig, "the simulated backend config is not JSON");
  }
  return parseSimConfig(object);
}

}  // namespace agent

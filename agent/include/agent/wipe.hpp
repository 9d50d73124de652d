// Decommission wipe on the wire (contracts/decommission-wire.md): the plan the service sends with a
// "wipe" task and the report the agent posts back. The agent reports facts; the service judges.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "common/result.hpp"

namespace agent {

struct WipePlan {
  std::uint64_t seed = 0;  // required: the random pass and drive samples derive from it
  std::uint32_t pattern = 0xA5A5A5A5u;  // the first pass's 32-bit word
  bool reset_gpus = true;               // reset each GPU through NVML after the wipe, if permitted
  double drive_sample_coverage = 0.01;  // fraction of blocks hashed before/after, in (0, 1]
  std::vector<std::string> skip_drive_serials;  // erased out of band by the service
};

struct UnreachableMemory {
  std::string what;  // "driver_reserved", "allocation_failed", "driver_reserved_or_in_use"
  std::uint64_t bytes = 0;
};

struct WipePass {
  std::string name;  // "pattern", "random", "zero"
  std::uint64_t bytes_written = 0;
  std::uint64_t bytes_verified = 0;
  std::uint64_t mismatches = 0;  // words read back differing from what was written
  double seconds = 0;
  double gbps = 0;
};

struct GpuWipeReport {
  std::string gpu_serial;
  std::string gpu_uuid;
  std::string gpu_model;
  std::uint64_t total_bytes = 0;
  std::uint64_t covered_bytes = 0;
  std::vector<UnreachableMemory> unreachable;
  std::vector<WipePass> passes;
  std::uint64_t bytes_written = 0;  // sums over passes
  std::uint64_t bytes_verified = 0;
  std::uint64_t mismatches = 0;
  double seconds = 0;
  double gbps = 0;                // bytes_written / seconds, GB = 1e9
  std::string reset = "skipped";  // "done", "not_permitted", "not_supported", "failed", "skipped"
  std::string started_at;         // ISO 8601 UTC
  std::string finished_at;
  std::string error;  // what stopped the wipe, or ""
};

struct DriveFallback {
  std::string method;
  std::string reason;
};

struct DriveVerification {
  std::string method = "canary+sample";
  std::uint64_t canaries_written = 0;
  std::uint64_t canaries_remaining = 0;
  double sample_coverage = 0;
  std::uint64_t sample_blocks = 0;
  std::uint64_t unchanged_blocks = 0;
};

struct DriveReport {
  std::string serial;
  std::string model;
  std::string manufacturer;
  std::string media_type = "ssd";  // "ssd", "hdd"
  std::string interface;           // "nvme", "sata", "sas", "file"
  std::uint64_t capacity_bytes = 0;
  std::string path = "in_band";
  std::string method = "none";      // "nvme_sanitize_crypto", ..., "overwrite", "none"
  std::string nist_level = "none";  // "purge", "clear", "none"
  std::string technique;            // "cryptographic erase", "overwrite with zeros", ...
  std::string tool;
  std::string tool_version;
  std::vector<DriveFallback> fallbacks;
  DriveVerification verification;
  std::string result = "failed";  // "passed", "failed"
  std::string error;
  std::string started_at;
  std::string finished_at;
};

struct WipeReport {
  std::vector<GpuWipeReport> gpus;
  std::vector<DriveReport> drives;
  std::string tool = "provisioner-agent";
  std::string tool_version;
  std::string backend;  // "cuda", "simulated"
};

// InvalidArgument "invalid_wipe_plan" naming the field (seed missing, coverage outside (0, 1],
// ...).
common::Result<WipePlan> parseWipePlan(const nlohmann::json& object);
nlohmann::json toJson(const WipePlan& plan);

// InvalidArgument "invalid_result" naming the field ("wipe.gpus[1].passes[0].mismatches").
common::Result<WipeReport> parseWipeReport(const nlohmann::json& object);
nlohmann::json toJson(const WipeReport& report);

}  // namespace agent

// Command line of the `provisioner` binary: subcommands and their flags, with environment
// fallbacks.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/result.hpp"

namespace provisioner::service {

struct ServiceOptions {
  // "serve", "migrate", "health-compact", "token create", "token list", "token revoke", "help"
  std::string command;
  std::string config_file;  // --config: read before parsing (config_file.hpp)
  std::string listen = "127.0.0.1:8080";
  std::string database_url;  // empty: a private PostgreSQL under state_dir
  std::string state_dir = "./var";
  std::string migrations_dir;
  std::string secret_key_file;    // else PROVISIONER_SECRET_KEY, else state_dir/secret.key
  std::string log_level;          // default: info for serve, warn for one-shot commands
  std::size_t http_threads = 32;  // cpp-httplib holds a worker per open connection
  std::size_t db_pool_size = 8;
  // images and boot
  std::string image_store_dir;   // default state_dir/images
  std::string trusted_keys_dir;  // default state_dir/trusted-keys
  std::string public_url;        // default http://<listen>
  std::string artifact_mirror_url;
  int boot_token_ttl_s = 3600;
  // workflows (docs/workflows.md)
  bool workflows = true;              // --no-workflows: API only, no engine
  std::size_t workflow_workers = 32;  // steps in flight in this replica
  std::string replica_name;           // lease owner; default host:pid:random
  int workflow_lease_s = 60;          // a claimed run is this replica's this long (renewed)
  double lifecycle_time_scale = 1.0;  // divides every lifecycle wait (simulated fleets)
  int max_active_per_rack = 0;        // 0: no cap
  int max_active_per_site = 0;
  std::string factory_credentials_file;  // "user:password" for BMCs no purchase order names
  bool bmc_tls_insecure = false;
  int bmc_port = 443;               // Redfish port of BMCs known by address only
  int bmc_request_timeout_s = 30;   // one Redfish request unanswered this long has failed
  std::string boot_target = "pxe";  // or uefi_http
  std::string handoff_url;
  std::string handoff_format = "generic";  // slurm, kubernetes
  std::string handoff_token_file;
  // Firmware campaigns: where nodes are drained before an update and resumed after it.
  std::string drain_url;
  std::string drain_format = "generic";  // slurm, kubernetes
  std::string drain_token_file;
  // Firmware re-inventory of in-service nodes (docs/firmware.md): every node read again when its
  // last read is this old (0: off), at most this many nodes a minute fleet-wide.
  // Decommissioning (docs/decommission.md): the catalog channel a wipe boots, and the share of a
  // GPU's memory its wipe must cover to pass.
  std::string wipe_channel = "wipe";
  double wipe_min_gpu_coverage = 0.95;
  int quick_check_seconds = 60;  // each burn-in test of a campaign's quick check
  int firmware_reinventory_hours = 6;
  int firmware_reinventory_per_minute = 120;
  // The out-of-band health sweep (docs/health.md): nodes silent for 3 monitor intervals are read
  // through their BMCs, at most this many a minute fleet-wide (0: off).
  int monitor_interval_s = 30;
  int health_sweep_per_minute = 60;
  // The GPU health history's clock (docs/health.md, "A simulated fleet's days in minutes"):
  // `health_time_scale` seconds pass each real second from `health_clock_epoch` (Unix seconds;
  // unset: the service's start) on. 1: the system clock, as in production.
  double health_time_scale = 1.0;
  std::optional<long long> health_clock_epoch;
  // token subcommands
  std::string token_name;
  std::string token_role;
  // health-compact --as-of YYYY-MM-DD: the day compaction counts from (empty: today, UTC).
  std::string as_of;
  std::optional<long long> token_id;
};

// Parses argv (without the program name). Unknown flags and missing values are errors naming them.
common::Result<ServiceOptions> parseServiceOptions(const std::vector<std::string>& args);

std::string serviceUsage();

// Every flag parseServiceOptions takes, with whether it is a switch (takes no value).
std::vector<std::pair<std::string, bool>> serviceFlags();

}  // namespace provisioner::service

#include "provisioner/service/options.hpp"

#include <charconv>
#include <cstdlib>
#include <functional>
#include <map>

namespace provisioner::service {
namespace {

using common::invalidArgument;

std::string envOr(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return (v != nullptr && *v != '\0') ? std::string(v) : fallback;
}

common::Result<long long> parseNumber(const std::string& flag, const std::string& text,
                                      long long min, long long max) {
  long long v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || ptr != text.data() + text.size() || v < min || v > max) {
    return common::fail(invalidArgument(
        "invalid_flag",
        flag + " must be a number from " + std::to_string(min) + " to " + std::to_string(max),
        flag));
  }
  return v;
}

// Splits "token create" style commands off the front of the arguments.
std::pair<std::string, std::size_t> commandOf(const std::vector<std::string>& args) {
  if (args.empty()) return {"help", 0};
  if (args[0] == "token" && args.size() > 1) return {"token " + args[1], 2};
  return {args[0], 1};
}

// Flags that take no value.
const std::map<std::string, std::pair<bool ServiceOptions::*, bool>>& switches() {
  static const std::map<std::string, std::pair<bool ServiceOptions::*, bool>> all{
      {"--no-workflows", {&ServiceOptions::workflows, false}},
      {"--bmc-tls-insecure", {&ServiceOptions::bmc_tls_insecure, true}},
  };
  return all;
}

using Setter = std::function<common::Result<void>(ServiceOptions&, const std::string&)>;

std::map<std::string, Setter> flagSetters() {
  auto text = [](std::string ServiceOptions::*field) {
    return Setter([field](ServiceOptions& o, const std::string& v) -> common::Result<void> {
      o.*field = v;
      return common::success();
    });
  };
  auto count = [](std::size_t ServiceOptions::*field, const char* flag) {
    return Setter([field, flag](ServiceOptions& o, const std::string& v) -> common::Result<void> {
      auto n = parseNumber(flag, v, 1, 256);
      if (!n) return common::fail(std::move(n).error());
      o.*field = static_cast<std::size_t>(*n);
      return common::success();
    });
  };
  auto cap = [](int ServiceOptions::*field, const char* flag) {
    return Setter([field, flag](ServiceOptions& o, const std::string& v) -> common::Result<void> {
      auto n = parseNumber(flag, v, 0, 100000);
      if (!n) return common::fail(std::move(n).error());
      o.*field = static_cast<int>(*n);
      return common::success();
    });
  };
  // A clock's speed-up: 1 (real time) to 100000.
  auto scale = [](double ServiceOptions::*field, const char* flag) {
    return Setter([field, flag](ServiceOptions& o, const std::string& v) -> common::Result<void> {
      char* end = nullptr;
      const double x = std::strtod(v.c_str(), &end);
      if (end == v.c_str() || *end != '\0' || !(x >= 1.0 && x <= 100000.0)) {
        return common::fail(invalidArgument(
            "invalid_flag", std::string(flag) + " must be a number from 1 to 100000", flag));
      }
      o.*field = x;
      return common::success();
    });
  };
  auto oneOf = [](std::string ServiceOptions::*field, const char* flag,
                  std::vector<std::string> allowed) {
    return Setter(
        [field, flag, allowed](ServiceOptions& o, const std::string& v) -> common::Result<void> {
          for (const auto& a : allowed) {
            if (a == v) {
              o.*field = v;
              return common::success();
            }
          }
          std::string list;
          for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
          return common::fail(
              invalidArgument("invalid_flag", std::string(flag) + " must be one of " + list, flag));
        });
  };
  return {
      {"--listen", text(&ServiceOptions::listen)},
      {"--config", text(&ServiceOptions::config_file)},  // read before parsing (config_file.hpp)
      {"--database-url", text(&ServiceOptions::database_url)},
      {"--state-dir", text(&ServiceOptions::state_dir)},
      {"--migrations-dir", text(&ServiceOptions::migrations_dir)},
      {"--secret-key-file", text(&ServiceOptions::secret_key_file)},
      {"--log-level", text(&ServiceOptions::log_level)},
      {"--name", text(&ServiceOptions::token_name)},
      {"--role", text(&ServiceOptions::token_role)},
      {"--as-of", text(&ServiceOptions::as_of)},
      {"--http-threads", count(&ServiceOptions::http_threads, "--http-threads")},
      {"--db-pool-size", count(&ServiceOptions::db_pool_size, "--db-pool-size")},
      {"--image-store", text(&ServiceOptions::image_store_dir)},
      {"--trusted-keys", text(&ServiceOptions::trusted_keys_dir)},
      {"--public-url", text(&ServiceOptions::public_url)},
      {"--artifact-mirror", text(&ServiceOptions::artifact_mirror_url)},
      {"--workflow-workers", count(&ServiceOptions::workflow_workers, "--workflow-workers")},
      {"--replica-name", text(&ServiceOptions::replica_name)},
      {"--lifecycle-time-scale",
       scale(&ServiceOptions::lifecycle_time_scale, "--lifecycle-time-scale")},
      {"--wipe-channel", text(&ServiceOptions::wipe_channel)},
      {"--wipe-min-gpu-coverage",
       Setter([](ServiceOptions& o, const std::string& v) -> common::Result<void> {
         char* end = nullptr;
         const double share = std::strtod(v.c_str(), &end);
         if (end == v.c_str() || *end != '\0' || !(share >= 0.5 && share <= 1.0)) {
           return common::fail(invalidArgument(
               "invalid_flag", "--wipe-min-gpu-coverage must be a number from 0.5 to 1",
               "--wipe-min-gpu-coverage"));
         }
         o.wipe_min_gpu_coverage = share;
         return common::success();
       })},
      {"--max-active-per-rack", cap(&ServiceOptions::max_active_per_rack, "--max-active-per-rack")},
      {"--max-active-per-site", cap(&ServiceOptions::max_active_per_site, "--max-active-per-site")},
      {"--factory-credentials-file", text(&ServiceOptions::factory_credentials_file)},
      {"--bmc-port", Setter([](ServiceOptions& o, const std::string& v) -> common::Result<void> {
         PROV_ASSIGN(auto n, parseNumber("--bmc-port", v, 1, 65535));
         o.bmc_port = static_cast<int>(n);
         return common::success();
       })},
      {"--bmc-request-timeout-seconds",
       Setter([](ServiceOptions& o, const std::string& v) -> common::Result<void> {
         PROV_ASSIGN(auto n, parseNumber("--bmc-request-timeout-seconds", v, 1, 600));
         o.bmc_request_timeout_s = static_cast<int>(n);
         return common::success();
       })},
      {"--boot-target", oneOf(&ServiceOptions::boot_target, "--boot-target", {"pxe", "uefi_http"})},
      {"--handoff-url", text(&ServiceOptions::handoff_url)},
      {"--handoff-format", oneOf(&ServiceOptions::handoff_format, "--handoff-format",
                                 {"generic", "slurm", "kubernetes"})},
      {"--handoff-token-file", text(&ServiceOptions::handoff_token_file)},
      {"--drain-url", text(&ServiceOptions::drain_url)},
      {"--drain-format",
       oneOf(&ServiceOptions::drain_format, "--drain-format", {"generic", "slurm", "kubernetes"})},
      {"--drain-token-file", text(&ServiceOptions::drain_token_file)},
      {"--workflow-lease-seconds",
       Setter([](ServiceOptions& o, const std::string& v) -> common::Result<void> {
         PROV_ASSIGN(auto n, parseNumber("--workflow-lease-seconds", v, 3, 3600));
         o.workflow_lease_s = static_cast<int>(n);
         return common::success();
       })},
      {"--quick-check-seconds",
       Setter([](ServiceOptions& o, const std::string& v) -> common::Result<void> {
         PROV_ASSIGN(auto n, parseNumber("--quick-check-seconds", v, 1, 3600));
         o.quick_check_seconds = static_cast<int>(n);
         return common::success();
       })},
      {"--firmware-reinventory-hours",
       Setter([](ServiceOptions& o, const std::string& v) -> common::Result<void> {
         PROV_ASSIGN(auto n, parseNumber("--firmware-reinventory-hours", v, 0, 24 * 30));
         o.firmware_reinventory_hours = static_cast<int>(n);
         return common::success();
       })},
      {"--firmware-reinventory-per-minute",
       Setter([](ServiceOptions& o, const std::string& v) -> common::Result<void> {
         PROV_ASSIGN(auto n, parseNumber("--firmware-reinventory-per-minute", v, 1, 100000));
         o.firmware_reinventory_per_minute = static_cast<int>(n);
         return common::success();
       })},
      {"--health-sweep-per-minute",
       Setter([](ServiceOptions& o, const std::string& v) -> common::Result<void> {
         PROV_ASSIGN(auto n, parseNumber("--health-sweep-per-minute", v, 0, 100000));
         o.health_sweep_per_minute = static_cast<int>(n);
         return common::success();
       })},
      {"--monitor-interval",
       Setter([](ServiceOptions& o, const std::string& v) -> common::Result<void> {
         PROV_ASSIGN(auto n, parseNumber("--monitor-interval", v, 5, 3600));
         o.monitor_interval_s = static_cast<int>(n);
         return common::success();
       })},
      {"--health-time-scale", scale(&ServiceOptions::health_time_scale, "--health-time-scale")},
      {"--health-clock-epoch",
       Setter([](ServiceOptions& o, const std::string& v) -> common::Result<void> {
         PROV_ASSIGN(auto n, parseNumber("--health-clock-epoch", v, 0, 4102444800));
         o.health_clock_epoch = n;
         return common::success();
       })},
      {"--boot-token-ttl",
       Setter([](ServiceOptions& o, const std::string& v) -> common::Result<void> {
         PROV_ASSIGN(auto n, parseNumber("--boot-token-ttl", v, 60, 7 * 86400));
         o.boot_token_ttl_s = static_cast<int>(n);
         return common::success();
       })},
  };
}

}  // namespace

std::vector<std::pair<std::string, bool>> serviceFlags() {
  std::vector<std::pair<std::string, bool>> out;
  for (const auto& [flag, setter] : flagSetters()) out.emplace_back(flag, false);
  for (const auto& [flag, sw] : switches()) out.emplace_back(flag, true);
  return out;
}

common::Result<ServiceOptions> parseServiceOptions(const std::vector<std::string>& args) {
  ServiceOptions o;
  o.database_url = envOr("PROVISIONER_DATABASE_URL", "");
  o.state_dir = envOr("PROVISIONER_STATE_DIR", o.state_dir);
  o.migrations_dir = envOr("PROVISIONER_MIGRATIONS_DIR", "");
  auto [command, first] = commandOf(args);
  o.command = command;
  static const auto setters = flagSetters();
  std::vector<std::string> positional;
  for (std::size_t i = first; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a.rfind("--", 0) != 0) {
      positional.push_back(a);
      continue;
    }
    if (auto sw = switches().find(a); sw != switches().end()) {
      o.*(sw->second.first) = sw->second.second;
      continue;
    }
    auto eq = a.find('=');
    std::string flag = a.substr(0, eq);
    auto it = setters.find(flag);
    if (it == setters.end()) {
      return common::fail(invalidArgument("unknown_flag", "unknown flag " + flag, flag));
    }
    std::string value;
    if (eq != std::string::npos) {
      value = a.substr(eq + 1);
    } else if (i + 1 < args.size()) {
      value = args[++i];
    } else {
      return common::fail(invalidArgument("missing_value", flag + " needs a value", flag));
    }
    PROV_TRY(it->second(o, value));
  }
  if (o.command == "token revoke") {
    if (positional.size() != 1) {
      return common::fail(invalidArgument("missing_argument", "usage: token revoke ID", "id"));
    }
    auto id = parseNumber("id", positional[0], 1, (1LL << 62));
    if (!id) return common::fail(std::move(id).error());
    o.token_id = *id;
  } else if (!positional.empty()) {
    return common::fail(
        invalidArgument("unexpected_argument", "unexpected argument " + positional[0]));
  }
  if (o.command == "token create" && (o.token_name.empty() || o.token_role.empty())) {
    return common::fail(invalidArgument("missing_flag", "token create needs --name and --role",
                                        o.token_name.empty() ? "--name" : "--role"));
  }
  return o;
}

std::string serviceUsage() {
  return R"(usage: provisioner COMMAND [flags]

commands:
  serve                       run the service (HTTP API, boot endpoints, workers)
  migrate                     apply pending database migrations and exit
  health-compact [--as-of YYYY-MM-DD]
                              compact the raw GPU health readings of closed days now, as the
                              upkeep does every few minutes (docs/health.md, "Storage")
  token create --name N --role ROLE
                              create an API token (printed once); ROLE is viewer, procurement,
                              asset, operator or admin
  token list                  list tokens (never their secrets)
  token revoke ID             revoke a token
  bmc COMMAND --url URL --username U --password P [--ca FILE | --pin SHA256 | --insecure]
                              one operation on one BMC over Redfish, JSON on stdout
                              (docs/cli.md, `provisioner bmc`; `bmc --help` lists the flags):
      inventory               crawl it and print its inventory (docs/redfish.md)
      power [--reset TYPE] [--chassis]
                              the power state, or ComputerSystem.Reset (Chassis.Reset)
      boot [--once pxe|http|cd] [--uefi-http-uri URI]
                              the boot override, or set a one-time one
      bios [--set FILE.json]  BIOS attributes, or PATCH the pending settings
      firmware                the FirmwareInventory
      update --image-uri URI [--target PATH]... [--force] [--wait]
                              SimpleUpdate; the task, or with --wait its end
      tasks [--task PATH]     the BMC's tasks, or one task's state
                              exit 0 done, 1 the BMC failed or refused, 2 bad usage
  cert verify CERT.json --signature CERT.sig --public-key KEY.pem
                              check a sanitization certificate offline (docs/decommission.md);
                              exit 0 verified, 1 a check failed, 2 bad usage
  help                        this text

flags:
  --config FILE               settings, `key = value` per flag (docs/configuration.md), read
                              before the flags, which win (default, when it exists:
                              )" PROVISIONER_DEFAULT_CONFIG_FILE R"()
  --listen HOST:PORT          address to serve on (default 127.0.0.1:8080)
  --database-url URL          PostgreSQL URL (env PROVISIONER_DATABASE_URL); when absent a
                              private PostgreSQL is started under --state-dir
  --state-dir DIR             private database and secret key (env PROVISIONER_STATE_DIR,
                              default ./var)
  --migrations-dir DIR        SQL migrations (env PROVISIONER_MIGRATIONS_DIR)
  --secret-key-file FILE      AES-256 key for secrets at rest (else env PROVISIONER_SECRET_KEY,
                              else DIR/secret.key, created on first use)
  --http-threads N            HTTP worker threads, one per open connection (default 32)
  --db-pool-size N            database connections (default 8)
  --log-level LEVEL           trace, debug, info, warn, error (default info)
  --image-store DIR           content-addressed artifact store (default DIR/images)
  --trusted-keys DIR          Ed25519 public keys (*.pub, *.pem) images must be signed with
                              (default DIR/trusted-keys)
  --public-url URL            how booting nodes reach this service (default http://LISTEN)
  --artifact-mirror URL       nodes fetch artifacts from URL/sha256/<hex> instead
  --boot-token-ttl SECONDS    lifetime of the one-time agent token in a boot script (default 3600)

workflows (docs/workflows.md):
  --no-workflows              serve the API only: no lifecycle engine in this replica
  --workflow-workers N        lifecycle steps in flight in this replica (default 32)
  --replica-name NAME         this replica's name in run leases (default HOST:PID:RANDOM)
  --lifecycle-time-scale X    divide every lifecycle wait by X (simulated fleets; default 1)
  --max-active-per-rack N     nodes of one rack between claim and burn-in at once (0: no cap)
  --max-active-per-site N     the same per site (power and BMC budgets)
  --factory-credentials-file FILE
                              "user:password" for BMCs no purchase order names
  --bmc-tls-insecure          do not pin BMC certificates (lab use only)
  --bmc-port N                Redfish (https) port of BMCs reported by DHCP leases or rack
                              manifests (default 443; a sweep records the port it found)
  --bmc-request-timeout-seconds N
                              a Redfish request unanswered this long has failed (reads are
                              tried again; default 30, 1 to 600)
  --boot-target pxe|uefi_http how the imaging step boots nodes (default pxe)
  --handoff-url URL           POST each ready node to the scheduler here
  --handoff-format F          generic, slurm or kubernetes (default generic)
  --handoff-token-file FILE   bearer token for the hand-off webhook
  --drain-url URL             firmware campaigns drain nodes here before an update and resume
                              them after (docs/firmware.md); unset: nodes count as idle at once
  --drain-format F            generic, slurm or kubernetes (default generic)
  --drain-token-file FILE     bearer token for the drain webhook
  --quick-check-seconds S     each burn-in test of a campaign's quick check runs S s (60)
  --firmware-reinventory-hours H      re-read in-service nodes' FirmwareInventory when the last
                              read is H hours old (default 6; 0: never)
  --firmware-reinventory-per-minute N at most N such reads a minute, fleet-wide (default 120)
  --monitor-interval S        the nodes' resident monitor sends every S s (default 30); a node
                              silent for 3 intervals is read through its BMC (docs/health.md)
  --health-sweep-per-minute N at most N silent nodes' BMCs read a minute, fleet-wide (default
                              60; 0: no sweep)
  --health-time-scale X       simulated fleets only: the GPU health history's clock runs X times
                              as fast as the real one (default 1; docs/health.md)
  --health-clock-epoch T      ... from Unix time T on (default: the service's start); give every
                              replica and the simulator the same T

image commands (docs/images.md):
  image keygen|manifest|sign|verify ...      offline: keys, manifests, signatures
  image upload|register|list|promote|rollback|channels ...   through the API (like provisionerctl)
)";
}

}  // namespace provisioner::service

// The node lifecycle workflow: a BMC seen on the network becomes a `ready` node in the
// scheduler's pool, or a `quarantined` one with a reason a person can act on.
//
//   match -> admit -> claim -> inspect -> configure -> firmware -> imaging -> burn_in -> handoff
//   (any failure -> quarantine)
//
// Run subject: "bmc:<mac>" when the BMC MAC is known, else "bmc-at:<address>". Run context:
// {"discovery_id": N, "bmc_address": "...", "bmc_mac": "..."} plus what the steps learn.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "common/secret_box.hpp"
#include "inventory/database.hpp"
#include "workflows/clock.hpp"
#include "workflows/step.hpp"

namespace redfish {
class Transport;
}  // namespace redfish

namespace workflows {

inline constexpr const char* kNodeLifecycle = "node_lifecycle";

// Real-world durations; the simulator runs them faster, so every one is divided by time_scale.
struct LifecycleTimings {
  double time_scale = 1.0;
  Duration poll{15000};                 // how often a waiting step looks again
  Duration power_settle{120000};        // a reset until the host is past POST
  Duration bios_apply_timeout{900000};  // a reset until pending BIOS settings show applied
  Duration firmware_timeout{3600000};   // one firmware update task, start to finish
  Duration agent_timeout{7200000};      // a network boot until the agent's result
  int agent_attempts = 2;               // boots before an agent that never answers quarantines
  Duration slot_recheck{30000};         // a run refused admission looks again (or on a free)
  Duration scaled(Duration d) const;    // d / time_scale, at least 1 ms
};

struct FactoryCredentials {
  std::string username, password;
};

struct LifecycleSettings {
  LifecycleTimings timings;
  // How BMCs and booted nodes reach this service: Redfish event destinations, boot URLs.
  std::string public_url;
  int max_active_per_rack = 0;  // nodes in claim..burn_in at once per rack (0: no cap)
  int max_active_per_site = 0;
  // Used when no purchase-order unit names the BMC (e.g. a sweep found it by address).
  std::optional<FactoryCredentials> default_factory_credentials;
  std::string bmc_username = "provisioner";  // the account the claim step rotates, when present
  bool bmc_tls_insecure = false;    // BMC certificates: pinned on first use unless this is set
  int bmc_port = 443;               // https port of BMCs known by address only (leases, manifests)
  std::string boot_target = "pxe";  // "pxe" or "uefi_http"
  // Scheduler hand-off: POST of the ready node to this URL ("" skips it). Formats: "generic",
  // "slurm" (scontrol-style resume request), "kubernetes" (a Node object).
  std::string handoff_url;
  std::string handoff_format = "generic";
  std::string handoff_token;     // sent as a bearer token when set (never logged)
  bool subscribe_events = true;  // subscribe each claimed BMC to /api/v1/events/redfish
};

struct LifecycleDeps {
  inventory::DatabasePtr db;
  std::shared_ptr<const common::SecretBox> secrets;
  std::shared_ptr<redfish::Transport> transport;
  std::shared_ptr<Clock> clock;
};

WorkflowDef nodeLifecycleWorkflow(LifecycleDeps deps, LifecycleSettings settings);

// The run subject for a discovered BMC.
std::string bmcSubject(const std::string& bmc_mac, const std::string& bmc_address);

}  // namespace workflows

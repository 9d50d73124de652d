// What the configure, firmware and imaging steps share: the vendor quirks of this run's BMC, a
// host reset that powers on a host that is off, and the run's times and profile.
#pragma once

#include <optional>
#include <string>

#include "common/result.hpp"
#include "inventory/images.hpp"
#include "lifecycle_steps.hpp"
#include "redfish/boot.hpp"
#include "redfish/power.hpp"
#include "redfish/quirks.hpp"

namespace workflows::lifecycle {

// The vendor's quirks, as the crawler picks them (from the service root). The vendor is kept in
// data "vendor" so later steps skip the extra GET.
common::Result<redfish::Quirks> quirksOf(redfish::Client& client, StepContext& ctx);

// The one-time boot into the service's iPXE script: PXE, or UEFI HTTP boot from public_url.
redfish::BootOverride networkBootOverride(const Env& env);

// What the node's lifecycle run learnt about its BMC (base_url, bmc_address, bmc_mac,
// system_path, chassis_path, vendor, profile), as a run context, so a later workflow (a
// firmware update, a re-inventory) reaches the BMC the same way. Empty when there is no run.
nlohmann::json nodeBmcContext(const Env& env, inventory::Id node_id);

// The one-time network boot set and the host reset into it (imaging, a decommission's wipe boot),
// each asked once whatever replica dies when: the intent goes into `section` ("boot_intent",
// resume_checks.hpp) and the run row before each call, and a resumed step reads the override
// before acting again. nullopt when the host is booting into it (`done` says how), else the
// outcome to return: the BMC's trouble, a lost lease, or a wait while a reset asked by a replica
// that died may still be reaching POST. The caller erases nothing; "boot_intent" is cleared here.
struct NetworkBoot {
  std::string target;      // "Pxe", "UefiHttp"
  std::string reset_type;  // "On", "ForceRestart", ...; empty when adopted
  bool adopted = false;    // a replica before this one had booted the host already

  // For the timeline: "one-time Pxe boot and ForceRestart", or that it was found booting.
  std::string summary() const;
};
std::optional<StepOutcome> bootIntoNetwork(const Env& env, StepContext& ctx,
                                           nlohmann::json& section, NetworkBoot& done);

// How long a host reset takes to reach POST, where BIOS takes a one-time boot override and
// pending BIOS settings (power_settle, scaled): a resumed step waits this long after a reset
// intent before it concludes the reset never reached the BMC.
Duration postWindow(const Env& env);

// recordIntent() refused: this replica no longer holds the run, so it must not act.
StepOutcome leaseLost(const std::string& doing);

// GET of a Redfish resource as JSON; a non-2xx answer is the typed HTTP error.
common::Result<nlohmann::json> getJson(redfish::Client& client, const std::string& target);

// Power on when the host is off, else a restart: either way the host boots once.
common::Result<redfish::ResetOutcome> bootHost(redfish::Client& client,
                                               const std::string& system_path,
                                               const redfish::Quirks& quirks);

// "2026-12-02T09:43:46.123Z" and back (nullopt when the text is not that shape).
std::string isoTime(TimePoint at);
std::optional<TimePoint> parseIsoTime(const std::string& text);
// data()[object][key] as a time, when it is one.
std::optional<TimePoint> timeAt(const nlohmann::json& object, const char* key);

// The node's hardware profile: the one inspect named in data "profile", else the one for the
// node's model; nullopt when neither exists.
common::Result<std::optional<inventory::HardwareProfile>> profileOf(const Env& env,
                                                                    const StepContext& ctx);

// The node this run is about (run.node_id, else data "node_id"). FailedPrecondition-like
// internal error when the run has none yet.
common::Result<inventory::Id> nodeIdOf(const StepContext& ctx);

// The step's system path from inspect; empty when missing.
std::string systemPathOf(const StepContext& ctx);

// A BMC that did not answer as hoped: try again after backoff (the step's budget bounds it).
StepOutcome bmcTrouble(const std::string& doing, const common::Error& error);

}  // namespace workflows::lifecycle

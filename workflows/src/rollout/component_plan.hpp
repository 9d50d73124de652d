// Pure decisions of a node's firmware update (no I/O): which FirmwareInventory members one
// component of the plan covers, which of them still need the update, and whether a re-read shows
// the update applied. A component may cover several members (an HGX GPU bundle covers the eight
// HGX_FW_GPU_SXM_n members): all of them must reach the version.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "../lifecycle/firmware_inventory.hpp"
#include "common/result.hpp"

namespace workflows::rollout {

// How a package is installed: SimpleUpdate (the BMC downloads image_uri) or a multipart push of
// the stored file (sha256, size) to the BMC's MultipartHttpPushUri.
struct InstallVia {
  std::string method = "simple_update";  // simple_update | multipart_push
  std::string sha256;                    // multipart_push: the stored file pushed
  std::int64_t size = 0;                 // its size (0: not checked)
  bool simple_update_fallback = false;   // multipart_push: SimpleUpdate where push is absent

  bool operator==(const InstallVia&) const = default;
};

// One component of a node's plan, as the controller wrote it in the run's context.
struct ComponentUpdate {
  std::string component;  // "bmc", "gpu", ...
  nlohmann::json rule;    // {"software_id": "..."} or {"pattern": "..."}
  std::string from, to;   // from: what the plan saw installed (for rollback)
  std::string image_uri;
  std::string apply = "immediate";  // immediate | on_reset | ac_power_cycle
  bool force = false;               // ForceUpdate (a downgrade)
  std::string min_from;  // the lowest version the package installs over ("": any)
  std::optional<std::string> rollback_image_uri;  // the package of `from`, when one exists
  InstallVia install;                             // how the package of `to` is installed
  InstallVia rollback_install;                    // how the package of `from` is
};

// The "components" list of a run's context. InvalidArgument "invalid_components" naming the
// entry and field when the controller wrote something this step cannot act on.
common::Result<std::vector<ComponentUpdate>> parseComponents(const nlohmann::json& list);
nlohmann::json toJson(const ComponentUpdate& update);

// The same components taken back to what they were, in reverse order; nullopt when one of
// `touched` has no rollback image (the node cannot be rolled back).
std::optional<std::vector<ComponentUpdate>> rollbackOf(const std::vector<ComponentUpdate>& touched);

// The way one update goes to this BMC (what its UpdateService advertises): a multipart_push
// package is pushed where a MultipartHttpPushUri is advertised; elsewhere it goes by
// SimpleUpdate only when the package allows that (`fallback` true), else `failure` says why
// (reason multipart_push_unsupported). simple_update packages always go by SimpleUpdate.
struct MethodChoice {
  std::string method;  // simple_update | multipart_push; empty with a failure
  bool fallback = false;
  std::string failure;  // the message of a multipart_push_unsupported failure
};
MethodChoice chooseInstallMethod(const InstallVia& install, bool advertises_multipart_push,
                                 bool advertises_simple_update);

bool coversMember(const nlohmann::json& rule, const lifecycle::FirmwareMember& member);

struct MemberCheck {
  std::vector<std::string> covered;    // @odata.ids of the members the rule covers
  std::vector<std::string> pending;    // of those, the ones not at the version yet
  std::vector<std::string> versions;   // "Id=version" of the pending ones, for messages
  // "Id=version" of the pending ones below the package's min_from: the package must not be
  // flashed over them (the vendor supports no direct update from there).
  std::vector<std::string> below_min_from;
};
MemberCheck checkMembers(const ComponentUpdate& update,
                         const std::vector<lifecycle::FirmwareMember>& members);

}  // namespace workflows::rollout

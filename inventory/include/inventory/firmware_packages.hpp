// Firmware packages: a file in the content-addressed artifact store and what it installs, on
// which models, how. Immutable once registered; name and version identify one.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "inventory/database.hpp"
#include "inventory/types.hpp"

namespace inventory {

struct FirmwarePackageSpec {
  std::string name;  // [a-z0-9][a-z0-9._-]{0,63}
  std::string version;
  std::string vendor;
  std::vector<std::string> models;  // hardware_model strings; empty: any model
  std::string component;            // "bmc", "gpu", "bios", "nvswitch", "nic", ...
  std::string match_json;           // {"software_id": "..."} or {"pattern": "..."}
  std::string sha256;               // the artifact's digest (64 lower-case hex)
  std::int64_t size = 0;
  std::string install_method;    // "simple_update" | "multipart_push"
  std::string apply;             // "immediate" | "on_reset" | "ac_power_cycle"
  std::string min_from_version;  // "" any
  bool allow_downgrade = false;
  int estimated_seconds = 600;  // one install, for plan previews
  // multipart_push only: a BMC that advertises no MultipartHttpPushUri gets it by SimpleUpdate
  // (false: such a node fails, nothing flashed).
  bool simple_update_fallback = false;

  bool operator==(const FirmwarePackageSpec&) const = default;
};

struct FirmwarePackage {
  Id id = 0;
  FirmwarePackageSpec spec;
  std::string created_by;
  Timestamp created_at;
};

struct FirmwarePackageRegistration {
  FirmwarePackage package;
  bool created = false;  // false: the same package was registered before
};

// Registers the package; the same name and version again with identical metadata is answered
// with the stored one (created false), with anything different Conflict "package_exists".
common::Result<FirmwarePackageRegistration> registerFirmwarePackage(Database& db,
                                                                    const FirmwarePackageSpec& spec,
                                                                    const std::string& actor);
// NotFound "package_not_found".
common::Result<FirmwarePackage> getFirmwarePackage(Database& db, const std::string& name,
                                                   const std::string& version);
common::Result<std::optional<FirmwarePackage>> findFirmwarePackage(Database& db,
                                                                   const std::string& name,
                                                                   const std::string& version);
struct FirmwarePackageFilter {
  std::string name;
  std::string component;
  std::string model;  // packages for this model (or for any model)
  PageRequest page;
};
common::Result<Page<FirmwarePackage>> listFirmwarePackages(Database& db,
                                                           const FirmwarePackageFilter& filter);

}  // namespace inventory

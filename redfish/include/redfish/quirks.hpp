// Vendor differences as data: one table (src/ops/quirks.cpp) keyed by the vendor read from the
// service root and, where needed, the BMC firmware version. Operations consult a Quirks value
// instead of branching on vendor names.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace redfish {

struct Quirks {
  std::string vendor = "generic";  // table key: dell, hpe, lenovo, supermicro, ami, nvidia, generic
  // AMI (DGX host BMC) and OpenBMC-based HGX BMCs reject a resource ETag: send If-Match: *.
  bool patchIfMatchStar = false;
  // Dell: a Reset to the state the host is already in answers 409; that is success.
  bool redundantPowerConflictIsSuccess = false;
  // Dell: BIOS settings are applied by a configuration job (Managers/<iDRAC>/...Jobs) when the
  // PATCH did not create one itself.
  bool biosNeedsConfigJob = false;
  // Supermicro: a boot override needs BootSourceOverrideMode=UEFI in the same PATCH.
  bool bootOverrideSetsUefiMode = false;
  // NVIDIA HGX baseboard: its ComputerSystem answers 503 while the host is off; warn, go on.
  bool hgxUnavailableWhileOff = false;
  // HPE iLO: the same resources under lower-case paths; members are de-duplicated by
  // case-insensitive @odata.id (the crawl always does this; the flag documents the reason).
  bool caseInsensitiveDuplicates = false;
};

// One row of the table. `minFirmware`/`maxFirmware` bound the manager firmware the row applies
// to (dotted numeric compare; empty = unbounded).
struct QuirkRule {
  std::string_view vendor;
  std::string_view minFirmware;
  std::string_view maxFirmware;
  Quirks quirks;
  std::string_view why;
};

const std::vector<QuirkRule>& quirkTable();

// "dell", "hpe", "lenovo", "supermicro", "ami", "nvidia" or "generic" from the service root's
// Vendor, Manufacturer or Oem keys.
std::string detectVendor(const nlohmann::json& serviceRoot);

// The first matching row for this vendor and firmware, else the generic defaults.
Quirks quirksFor(std::string_view vendor, std::string_view firmwareVersion = {});
Quirks quirksForRoot(const nlohmann::json& serviceRoot);

// -1, 0, 1 comparing dotted version strings numerically ("2.72" < "2.100"); non-digits ignored.
int compareVersions(std::string_view a, std::string_view b);

}  // namespace redfish

// One-time boot override (PXE, UEFI HTTP, CD), checked against the system's allowable values.
#pragma once

#include <string>

#include "common/result.hpp"
#include "redfish/client.hpp"
#include "redfish/quirks.hpp"

namespace redfish {

enum class BootTarget { kPxe, kUefiHttp, kCd };

struct BootOverride {
  BootTarget target = BootTarget::kPxe;
  std::string httpBootUri;  // UefiHttp only; empty: the BMC/DHCP supplies it
};

std::string_view toString(BootTarget target);

// PATCHes {"Boot": {BootSourceOverrideEnabled: Once, BootSourceOverrideTarget, [HttpBootUri],
// [BootSourceOverrideMode: UEFI (Supermicro)]}} with If-Match. A target the system does not
// list -> bmc_value_not_allowed; an HttpBootUri on a system without one -> bmc_not_supported.
common::Result<void> setOneTimeBoot(Client& client, const std::string& systemPath,
                                    const BootOverride& boot, const Quirks& quirks = {});

// The system's boot override as it stands: what the next boot will take.
struct BootOverrideState {
  std::string enabled;  // "Once", "Continuous", "Disabled" ("" when not reported)
  std::string target;   // "Pxe", "UefiHttp", "None", ...
};
common::Result<BootOverrideState> readBootOverride(Client& client, const std::string& systemPath);

// The one-time override to `target` is still set: no boot has taken it yet (BIOS consumes a
// "Once" override at POST and the BMC sets it back to Disabled).
bool oneTimeBootPending(const BootOverrideState& state, BootTarget target);

}  // namespace redfish

// Base URL normalisation (one client per BMC) and request targets resolved against it.
#pragma once

#include <string>
#include <string_view>

#include "common/result.hpp"

namespace redfish::detail {

// "HTTPS://BMC-1:443/redfish/v1/" -> "https://bmc-1": scheme and host lower-cased, default port
// and any path dropped. kInvalidArgument unless http(s)://host[:port].
common::Result<std::string> normaliseBaseUrl(std::string_view url);

// "/redfish/v1/Systems" -> base + target; an absolute URL must be on the same BMC.
common::Result<std::string> resolveTarget(const std::string& normalisedBase,
                                          std::string_view target);

}  // namespace redfish::detail

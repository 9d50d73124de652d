// How decommissions, sanitized devices, evidence and certificates look in API responses.
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

#include "inventory/decommissions.hpp"

namespace provisioner::api {

// The decommission with its devices (NIST SP 800-88 fields), its evidence by name and SHA-256
// (never the bodies) and, when it failed, why.
nlohmann::json decommissionJson(const inventory::Decommission& d,
                                const std::vector<inventory::DeviceSanitization>& devices,
                                const std::vector<inventory::Evidence>& evidence);
// The record alone, for listings.
nlohmann::json decommissionSummaryJson(const inventory::Decommission& d);
// What a listing says of a certificate: ids, key, digest, time and where to fetch its files.
nlohmann::json certificateSummaryJson(const inventory::Certificate& c);

}  // namespace provisioner::api

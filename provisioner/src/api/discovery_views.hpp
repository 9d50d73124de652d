// JSON of discoveries and sweeps, and the checks of addresses the discovery routes share.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "common/result.hpp"
#include "inventory/discovery.hpp"

namespace provisioner::api {

nlohmann::json toJson(const inventory::Discovery& d);
nlohmann::json toJson(const inventory::Sweep& s);

// An IPv4 or IPv6 literal; "invalid_field" naming `field` otherwise.
common::Result<std::string> ipAddress(const std::string& text, const std::string& field);
// An IP literal or a DNS name (letters, digits, '-', '.'); "invalid_field" naming `field`.
common::Result<std::string> hostOrAddress(const std::string& text, const std::string& field);

}  // namespace provisioner::api

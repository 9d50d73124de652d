// Advance ship notices: a vendor's CSV, one line per unit, into expected assets of a PO.
#pragma once

#include <string_view>
#include <vector>

#include "common/result.hpp"
#include "inventory/purchase_orders.hpp"

namespace provisioner::api {

// Columns by header name, any order, case-insensitive: serial, model, bmc_mac, factory_password,
// rack, u (required); factory_username, gpu_count, line_no (optional); others are ignored.
// Every unit carries its CSV line number; the first bad line is an "invalid_csv" error naming it.
common::Result<std::vector<inventory::ExpectedAssetSpec>> parseShipNotice(std::string_view csv);

}  // namespace provisioner::api

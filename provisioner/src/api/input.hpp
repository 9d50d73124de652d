// Request input shared by the route groups: ids, paging, actors, and the purchase-order shapes.
#pragma once

#include <optional>
#include <string>

#include "common/result.hpp"
#include "inventory/health/time.hpp"
#include "inventory/purchase_orders.hpp"
#include "inventory/types.hpp"
#include "provisioner/api/api.hpp"
#include "provisioner/http/json_input.hpp"
#include "provisioner/http/request.hpp"

namespace provisioner::api {

// A positive integer path parameter; "invalid_field" naming it otherwise.
common::Result<inventory::Id> idParam(const http::Request& request, std::string_view name);
// `limit` and `cursor` query parameters.
common::Result<inventory::PageRequest> pageRequest(const http::Request& request);
// The service's clock (the context's, else the system's) to the second: when a request is
// handled, for what it records and the ranges it defaults to.
inventory::health::Seconds requestTime(const ApiContext& ctx);
// Now on the GPU health history's clock (ApiContext::health_clock).
inventory::health::Seconds healthTime(const ApiContext& ctx);
// The token name the request runs as, for timelines and history.
std::string actorOf(const http::Request& request);

common::Result<inventory::LineItem> readLineItem(const http::FieldReader& in);
// `require_identity_only`: for update_assets, where only chassis_serial is mandatory.
common::Result<inventory::ExpectedAssetSpec> readExpectedAsset(const http::FieldReader& in,
                                                               bool require_model);
common::Result<std::vector<inventory::ExpectedAssetSpec>> readExpectedAssets(
    const http::FieldReader& in, std::string_view name, bool require_model);
common::Result<std::vector<inventory::LineItem>> readLineItems(const http::FieldReader& in,
                                                               std::string_view name);

// A string field that must be non-empty after trimming.
common::Result<std::string> requiredText(const http::FieldReader& in, std::string_view name,
                                         std::size_t max_length = 256);
std::string trimmed(std::string_view s);

// A burn-in plan object field, checked (errors name "<name>.tests[0]" ...) and normalised to JSON
// with every default filled in; nullopt when the field is absent.
common::Result<std::optional<std::string>> optionalBurnInPlan(const http::FieldReader& in,
                                                              std::string_view name);

}  // namespace provisioner::api

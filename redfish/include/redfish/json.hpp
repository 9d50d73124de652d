// BMC responses are untrusted: parse with limits and read with accessors that never throw.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "common/result.hpp"

namespace redfish {

using Json = nlohmann::json;

struct ParseLimits {
  std::size_t maxBytes = 16 * 1024 * 1024;
  int maxDepth = 64;
};

// A typed `bmc_malformed_response` error (kProtocol) naming `url` when the body is empty, too
// large, too deep, truncated or not JSON. Never throws.
common::Result<Json> parseBody(std::string_view body, std::string_view url,
                               ParseLimits limits = {});

// Non-throwing readers: a missing member or one of another type reads as absent.
const Json* member(const Json& object, std::string_view key);
std::optional<std::string> stringAt(const Json& object, std::string_view key);
std::optional<std::int64_t> intAt(const Json& object, std::string_view key);
std::optional<double> numberAt(const Json& object, std::string_view key);
std::optional<bool> boolAt(const Json& object, std::string_view key);
// `object[key]["@odata.id"]`, e.g. odataLink(root, "Systems") -> "/redfish/v1/Systems".
std::optional<std::string> odataLink(const Json& object, std::string_view key);
// The object's own "@odata.id".
std::optional<std::string> odataId(const Json& object);
// Follows a path of object keys: at(j, {"Status", "Health"}); nullptr when any step is missing.
const Json* at(const Json& object, std::initializer_list<std::string_view> path);
// "@odata.id" of each element of `object[key]` (e.g. "Members"), skipping malformed entries.
std::vector<std::string> memberLinks(const Json& object, std::string_view key = "Members");

}  // namespace redfish

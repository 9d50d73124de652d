// Checks shared by the catalog and agent sources: name patterns, digests, normalised MACs, JSON
// text (parsed by PostgreSQL, so the library needs no JSON parser), and typed errors.
#pragma once

#include <string>
#include <string_view>

#include "common/result.hpp"
#include "db.hpp"

namespace inventory::detail {

// [a-z0-9][a-z0-9._-]{0,63}: image, channel and profile names.
bool isCatalogName(std::string_view s);
// [A-Za-z0-9][A-Za-z0-9._+-]{0,63}: image versions.
bool isImageVersion(std::string_view s);
// 64 lower-case hex digits.
bool isSha256Hex(std::string_view s);

// InvalidArgument "invalid_json" naming `field` when `json` does not parse.
common::Result<void> requireJson(const std::string& json, const std::string& field);

// Unauthenticated with a precise code (the agent-token failures).
common::Error unauthenticatedAs(std::string code, std::string message);

common::Error taskNotFound(Id task_id);

}  // namespace inventory::detail

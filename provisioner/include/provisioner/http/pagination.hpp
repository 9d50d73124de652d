// Opaque page cursors and the `limit` query parameter of every listing (docs/api.md "Pagination").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/result.hpp"

namespace provisioner::http {

inline constexpr int kDefaultPageLimit = 50;
inline constexpr int kMaxPageLimit = 1000;

// A cursor meaning "the items after id `after`": base64url (no padding) of "v1:<after>".
// Opaque to clients, not signed: it only saves the client from knowing our keys.
std::string encodeCursor(std::int64_t after);
// The id a cursor stands for; anything not made by encodeCursor is "invalid_cursor" (field
// "cursor").
common::Result<std::int64_t> decodeCursor(std::string_view cursor);

// The `limit` query parameter: absent -> kDefaultPageLimit, else an integer in
// 1..kMaxPageLimit; anything else is "invalid_field" with field "limit".
common::Result<int> parseLimit(const std::optional<std::string>& limit);

// One page of a listing read with limit + 1 rows (the extra one says another page follows):
// {"items": the first `limit` rows as JSON, "next_cursor": after the last of them, or null}.
template <class Row, class IdOf, class ToJson>
nlohmann::json pageJson(std::vector<Row> rows, int limit, IdOf idOf, ToJson toJson) {
  nlohmann::json next = nullptr;
  if (rows.size() > static_cast<std::size_t>(limit)) {
    rows.resize(static_cast<std::size_t>(limit));
    next = encodeCursor(idOf(rows.back()));
  }
  nlohmann::json items = nlohmann::json::array();
  for (const Row& row : rows) items.push_back(toJson(row));
  return {{"items", std::move(items)}, {"next_cursor", std::move(next)}};
}

}  // namespace provisioner::http

// Small value helpers shared by the inventory sources: MAC normalisation, SQL array literals,
// flat JSON objects for event details, and keyset pages.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "inventory/types.hpp"

namespace inventory::detail {

inline constexpr int kMaxPageLimit = 1000;

// "AA-BB-CC-DD-EE-FF", "aabb.ccdd.eeff", "aabbccddeeff" -> "aa:bb:cc:dd:ee:ff"; nullopt when the
// text is not 12 hex digits with optional separators. Empty stays empty.
std::optional<std::string> normalizeMac(std::string_view text);

// A PostgreSQL array literal ({"a","b"}) for passing a list as one text[] parameter.
std::string textArray(const std::vector<std::string>& values);

// Builds {"key":"value",...} with JSON string escaping; numbers are written bare.
class JsonObject {
 public:
  JsonObject& add(std::string_view key, std::string_view value);
  JsonObject& add(std::string_view key, long long value);
  std::string str() const { return text_ + "}"; }

 private:
  void key(std::string_view k);
  std::string text_ = "{";
};

inline int clampLimit(int limit) {
  return limit < 1 ? 1 : (limit > kMaxPageLimit ? kMaxPageLimit : limit);
}

// Rows were fetched with LIMIT limit+1: the extra row only says that another page exists.
template <class T>
Page<T> makePage(std::vector<T> items, int limit) {
  Page<T> page;
  if (items.size() > static_cast<std::size_t>(limit)) {
    items.resize(static_cast<std::size_t>(limit));
    page.next_after = items.back().id;
  }
  page.items = std::move(items);
  return page;
}

}  // namespace inventory::detail

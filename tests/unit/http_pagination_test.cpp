#include <catch2/catch.hpp>

#include <limits>

#include "provisioner/http/pagination.hpp"

using provisioner::http::decodeCursor;
using provisioner::http::encodeCursor;
using provisioner::http::parseLimit;

namespace {

void requireInvalidCursor(std::string_view cursor) {
  INFO('"' << std::string(cursor) << '"');
  auto decoded = decodeCursor(cursor);
  REQUIRE_FALSE(decoded.ok());
  CHECK(decoded.error().code == "invalid_cursor");
  CHECK(decoded.error().field == "cursor");
  CHECK(decoded.error().kind == common::ErrorKind::kInvalidArgument);
}

}  // namespace

TEST_CASE("cursors round-trip and are opaque", "[unit][http]") {
  for (std::int64_t id : {std::int64_t{0}, std::int64_t{1}, std::int64_t{42},
                          std::int64_t{1234567890123}, std::numeric_limits<std::int64_t>::max()}) {
    const auto cursor = encodeCursor(id);
    INFO(cursor);
    CHECK(cursor.find_first_not_of(
              "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_") ==
          std::string::npos);
    CHECK(cursor.find(std::to_string(id)) == std::string::npos);
    auto decoded = decodeCursor(cursor);
    REQUIRE(decoded.ok());
    CHECK(*decoded == id);
  }
}

TEST_CASE("tampered or foreign cursors are rejected", "[unit][http]") {
  const auto good = encodeCursor(42);
  std::string flipped = good;
  flipped[1] = flipped[1] == 'A' ? 'B' : 'A';
  requireInvalidCursor(flipped);
  requireInvalidCursor(good + "A");
  requireInvalidCursor(good.substr(0, good.size() - 1));
  requireInvalidCursor(good + "=");
  requireInvalidCursor("");
  requireInvalidCursor("42");
  requireInvalidCursor("djE6NDI=");                         // standard base64 with padding
  requireInvalidCursor(encodeCursor(-5));                   // "v1:-5": no signs
  requireInvalidCursor("djI6NDI");                          // "v2:42"
  requireInvalidCursor("djE6");                             // "v1:" without an id
  requireInvalidCursor("djE6NGE");                          // "v1:4a"
  requireInvalidCursor("djE6OTk5OTk5OTk5OTk5OTk5OTk5OTk");  // "v1:99999999999999999999"
  requireInvalidCursor("djE6MDQy");                         // "v1:042" is not canonical
  requireInvalidCursor(std::string(1000, 'A'));
  requireInvalidCursor("djE6N+I/");
}

TEST_CASE("parseLimit defaults and bounds the page size", "[unit][http]") {
  CHECK(*parseLimit(std::nullopt) == 50);
  CHECK(*parseLimit(std::string("1")) == 1);
  CHECK(*parseLimit(std::string("1000")) == 1000);
  CHECK(*parseLimit(std::string("77")) == 77);
  for (const char* bad : {"0", "1001", "-1", "", " 10", "10 ", "1e3", "abc", "10abc", "+5",
                          "99999999999999999999999"}) {
    INFO('"' << bad << '"');
    auto limit = parseLimit(std::string(bad));
    REQUIRE_FALSE(limit.ok());
    CHECK(limit.error().code == "invalid_field");
    CHECK(limit.error().field == "limit");
  }
}

#include <catch2/catch.hpp>

#include "common/mac_address.hpp"

using common::normalizeMac;

TEST_CASE("normalizeMac accepts the common spellings", "[unit][common][http]") {
  const char* spellings[] = {"5c:ff:35:0a:0b:0c", "5C:FF:35:0A:0B:0C", "5c-ff-35-0a-0b-0c",
                             "5CFF.350A.0B0C",    "5cff350a0b0c",      "  5c:ff:35:0a:0b:0c\n"};
  for (const char* text : spellings) {
    INFO(text);
    auto mac = normalizeMac(text);
    REQUIRE(mac.ok());
    CHECK(*mac == "5c:ff:35:0a:0b:0c");
  }
}

TEST_CASE("normalizeMac rejects malformed addresses", "[unit][common][http]") {
  const char* bad[] = {"",
                       "5c:ff:35:0a:0b",        // five groups
                       "5c:ff:35:0a:0b:0c:0d",  // seven groups
                       "5c:ff:35:0a:0b:0g",     // not hex
                       "5c:ff-35:0a:0b:0c",     // mixed separators
                       "5cff350a0b0",           // eleven digits
                       "5cff350a0b0c0",         // thirteen digits
                       "5c.ff.35.0a.0b.0c",     // dots between bytes
                       "5cff:350a:0b0c",        // colons between words
                       "5c:ff:35:0a:0b:0c:",    // trailing separator
                       "5 c:ff:35:0a:0b:0c"};
  for (const char* text : bad) {
    INFO('"' << text << '"');
    auto mac = normalizeMac(text);
    REQUIRE_FALSE(mac.ok());
    CHECK(mac.error().code == "invalid_mac");
    CHECK(mac.error().kind == common::ErrorKind::kInvalidArgument);
  }
}

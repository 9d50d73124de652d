#include <catch2/catch.hpp>

#include "common/hex.hpp"

TEST_CASE("hexOf writes two lower-case digits per byte", "[hex]") {
  CHECK(common::hexOf(std::string("\x00\x0f\xa5\xff", 4)) == "000fa5ff");
  CHECK(common::hexOf(std::string_view{}).empty());
}

TEST_CASE("bytesFromHex reverses hexOf and refuses what is not hex", "[hex]") {
  const std::string bytes("\x01\x80\xfe\x00", 4);
  CHECK(common::bytesFromHex(common::hexOf(bytes)) == bytes);
  CHECK(common::bytesFromHex("0A0b") == std::string("\x0a\x0b", 2));
  CHECK_FALSE(common::bytesFromHex("abc").has_value());
  CHECK_FALSE(common::bytesFromHex("zz").has_value());
}

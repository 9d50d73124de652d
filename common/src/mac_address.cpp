#include "common/mac_address.hpp"

#include <cctype>

namespace common {
namespace {

constexpr std::size_t kHexDigits = 12;

bool isHex(char c) {
  return std::isxdigit(static_cast<unsigned char>(c)) != 0;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// Checks `text` is groups of `group` hex digits joined by `sep` and collects the digits.
bool collectGrouped(std::string_view text, std::size_t group, char sep, std::string& digits) {
  const std::size_t groups = kHexDigits / group;
  digits.clear();
  if (text.size() != kHexDigits + groups - 1) return false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const bool separator_slot = (i + 1) % (group + 1) == 0;
    if (separator_slot) {
      if (text[i] != sep) return false;
    } else {
      if (!isHex(text[i])) return false;
      digits.push_back(text[i]);
    }
  }
  return true;
}

bool collectDigits(std::string_view text, std::string& digits) {
  if (text.size() == kHexDigits) {
    for (char c : text) {
      if (!isHex(c)) return false;
    }
    digits.assign(text);
    return true;
  }
  return collectGrouped(text, 2, ':', digits) || collectGrouped(text, 2, '-', digits) ||
         collectGrouped(text, 4, '.', digits);
}

}  // namespace

Result<std::string> normalizeMac(std::string_view text) {
  std::string digits;
  digits.reserve(kHexDigits);
  if (!collectDigits(trim(text), digits)) {
    return invalidArgument("invalid_mac",
                           "a MAC address must look like aa:bb:cc:dd:ee:ff, aa-bb-cc-dd-ee-ff, "
                           "aabb.ccdd.eeff or aabbccddeeff");
  }
  std::string out;
  out.reserve(17);
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && i % 2 == 0) out.push_back(':');
    out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(digits[i]))));
  }
  return out;
}

}  // namespace common

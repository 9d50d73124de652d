#include "provisioner/http/pagination.hpp"

#include <charconv>

namespace provisioner::http {
namespace {

constexpr std::string_view kAlphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
constexpr std::string_view kCursorPrefix = "v1:";
constexpr std::size_t kMaxCursorLength = 64;

std::string base64UrlEncode(std::string_view data) {
  std::string out;
  std::uint32_t buffer = 0;
  int bits = 0;
  for (unsigned char byte : data) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 6) {
      bits -= 6;
      out.push_back(kAlphabet[(buffer >> bits) & 0x3F]);
    }
  }
  if (bits > 0) out.push_back(kAlphabet[(buffer << (6 - bits)) & 0x3F]);
  return out;
}

std::optional<std::string> base64UrlDecode(std::string_view text) {
  std::string out;
  std::uint32_t buffer = 0;
  int bits = 0;
  for (char c : text) {
    const auto index = kAlphabet.find(c);
    if (index == std::string_view::npos) return std::nullopt;
    buffer = (buffer << 6) | static_cast<std::uint32_t>(index);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((buffer >> bits) & 0xFF));
    }
  }
  // Leftover bits must be zero padding of a canonical encoding, and never a whole sextet.
  if (bits >= 6 || (buffer & ((1U << bits) - 1)) != 0) return std::nullopt;
  return out;
}

// Digits only: no sign, no spaces, no trailing garbage, and it must fit.
std::optional<std::int64_t> parseDigits(std::string_view text) {
  if (text.empty() || text.size() > 19) return std::nullopt;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
  }
  std::int64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

common::Error invalidCursor() {
  return common::invalidArgument("invalid_cursor",
                                 "cursor is not one this service issued; start from the first "
                                 "page",
                                 "cursor");
}

}  // namespace

std::string encodeCursor(std::int64_t after) {
  return base64UrlEncode(std::string(kCursorPrefix) + std::to_string(after));
}

common::Result<std::int64_t> decodeCursor(std::string_view cursor) {
  if (cursor.empty() || cursor.size() > kMaxCursorLength) return invalidCursor();
  auto decoded = base64UrlDecode(cursor);
  if (!decoded || !std::string_view(*decoded).starts_with(kCursorPrefix)) return invalidCursor();
  auto id = parseDigits(std::string_view(*decoded).substr(kCursorPrefix.size()));
  if (!id) return invalidCursor();
  // Only canonical spellings: "v1:007" decodes, but encodeCursor never makes it.
  if (encodeCursor(*id) != cursor) return invalidCursor();
  return *id;
}

common::Result<int> parseLimit(const std::optional<std::string>& limit) {
  if (!limit) return kDefaultPageLimit;
  auto value = parseDigits(*limit);
  if (!value || *value < 1 || *value > kMaxPageLimit) {
    return common::invalidArgument(
        "invalid_field", "limit must be an integer from 1 to " + std::to_string(kMaxPageLimit),
        "limit");
  }
  return static_cast<int>(*value);
}

}  // namespace provisioner::http

// Character rules shared by manifests and iPXE scripts, so an image that validates also renders.
#pragma once

#include <algorithm>
#include <string_view>

namespace images::detail {

// Characters iPXE or the kernel command line would interpret: quotes, '$' (setting expansion),
// '#' (comment), '\' (escape), and anything outside printable ASCII. Space is judged separately.
inline bool isBootTokenChar(char c) {
  const auto u = static_cast<unsigned char>(c);
  if (u <= 0x20 || u >= 0x7f) return false;
  return c != '"' && c != '\'' && c != '$' && c != '#' && c != '\\';
}

// A single token (URL, parameter key or value): no whitespace.
inline bool isBootToken(std::string_view text) {
  return std::all_of(text.begin(), text.end(), isBootTokenChar);
}

// Free text on one script line (kernel arguments, console labels): tokens separated by spaces.
inline bool isBootText(std::string_view text) {
  return std::all_of(text.begin(), text.end(),
                     [](char c) { return c == ' ' || isBootTokenChar(c); });
}

}  // namespace images::detail

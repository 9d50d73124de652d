// Small ASCII text helpers shared by the HTTP layer's sources (not part of its public API).
#pragma once

#include <cctype>
#include <string>
#include <string_view>

namespace provisioner::http::text {

inline bool isSpace(char c) {
  return std::isspace(static_cast<unsigned char>(c)) != 0;
}

inline std::string_view trim(std::string_view s) {
  while (!s.empty() && isSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && isSpace(s.back())) s.remove_suffix(1);
  return s;
}

inline char toLower(char c) {
  return static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
}

inline std::string toLower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = toLower(c);
  return out;
}

// Case-insensitive ASCII comparison, as HTTP header names and media types need.
inline bool equalsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (toLower(a[i]) != toLower(b[i])) return false;
  }
  return true;
}

}  // namespace provisioner::http::text

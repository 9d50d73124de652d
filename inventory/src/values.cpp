#include "values.hpp"

#include <cctype>
#include <cstdio>

namespace inventory::detail {
namespace {

void appendJsonString(std::string& out, std::string_view s) {
  out.push_back('"');
  for (char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
          out += buf;
        } else {
          out.push_back(c);
        }
    }
  }
  out.push_back('"');
}

}  // namespace

std::optional<std::string> normalizeMac(std::string_view text) {
  if (text.empty()) return std::string();
  std::string hex;
  for (char c : text) {
    if (c == ':' || c == '-' || c == '.') continue;
    if (!std::isxdigit(static_cast<unsigned char>(c))) return std::nullopt;
    hex.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  if (hex.size() != 12) return std::nullopt;
  std::string out;
  for (std::size_t i = 0; i < 12; i += 2) {
    if (i > 0) out.push_back(':');
    out.append(hex, i, 2);
  }
  return out;
}

std::string textArray(const std::vector<std::string>& values) {
  std::string out = "{";
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out.push_back(',');
    out.push_back('"');
    for (char c : values[i]) {
      if (c == '"' || c == '\\') out.push_back('\\');
      out.push_back(c);
    }
    out.push_back('"');
  }
  out.push_back('}');
  return out;
}

void JsonObject::key(std::string_view k) {
  if (text_.size() > 1) text_.push_back(',');
  appendJsonString(text_, k);
  text_.push_back(':');
}

JsonObject& JsonObject::add(std::string_view k, std::string_view value) {
  key(k);
  appendJsonString(text_, value);
  return *this;
}

JsonObject& JsonObject::add(std::string_view k, long long value) {
  key(k);
  text_ += std::to_string(value);
  return *this;
}

}  // namespace inventory::detail

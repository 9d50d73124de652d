#include "catalog_values.hpp"

#include <nlohmann/json.hpp>

namespace inventory::detail {
namespace {

constexpr std::size_t kMaxNameLength = 64;

bool lowerAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

bool anyAlnum(char c) {
  return lowerAlnum(c) || (c >= 'A' && c <= 'Z');
}

template <class First, class Rest>
bool matches(std::string_view s, First first, Rest rest) {
  if (s.empty() || s.size() > kMaxNameLength || !first(s[0])) return false;
  for (char c : s.substr(1)) {
    if (!rest(c)) return false;
  }
  return true;
}

}  // namespace

bool isCatalogName(std::string_view s) {
  return matches(s, lowerAlnum,
                 [](char c) { return lowerAlnum(c) || c == '.' || c == '_' || c == '-'; });
}

bool isImageVersion(std::string_view s) {
  return matches(s, anyAlnum, [](char c) {
    return anyAlnum(c) || c == '.' || c == '_' || c == '+' || c == '-';
  });
}

bool isSha256Hex(std::string_view s) {
  if (s.size() != 64) return false;
  for (char c : s) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

// Checked here rather than by a round trip to json_text_valid(): the same verdict for what
// reaches us (jsonb also refuses \u0000, which nlohmann accepts).
common::Result<void> requireJson(const std::string& json, const std::string& field) {
  if (json.empty() || json.find("\\u0000") != std::string::npos || !nlohmann::json::accept(json)) {
    return common::invalidArgument("invalid_json", field + " is not valid JSON", field);
  }
  return common::success();
}

common::Error unauthenticatedAs(std::string code, std::string message) {
  return common::Error{
      common::ErrorKind::kUnauthenticated, std::move(code), std::move(message), {}, {}};
}

common::Error taskNotFound(Id task_id) {
  return common::notFound("task_not_found", "no agent task with id " + std::to_string(task_id));
}

}  // namespace inventory::detail

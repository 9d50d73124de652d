// Non-throwing readers over recorded and client JSON (both untrusted for shape).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace sim::model {

// Member `key` of `object` if `object` is an object holding it, else nullptr.
inline const nlohmann::json* member(const nlohmann::json& object, std::string_view key) {
  if (!object.is_object()) return nullptr;
  auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

inline std::string stringAt(const nlohmann::json& object, std::string_view key,
                            std::string fallback = {}) {
  const auto* value = member(object, key);
  return value && value->is_string() ? value->get<std::string>() : fallback;
}

// The "@odata.id" of `object[key]`, or empty.
inline std::string linkAt(const nlohmann::json& object, std::string_view key) {
  const auto* value = member(object, key);
  return value ? stringAt(*value, "@odata.id") : std::string{};
}

inline std::vector<std::string> stringsAt(const nlohmann::json& object, std::string_view key) {
  std::vector<std::string> out;
  const auto* value = member(object, key);
  if (!value || !value->is_array()) return out;
  for (const auto& item : *value) {
    if (item.is_string()) out.push_back(item.get<std::string>());
  }
  return out;
}

// The "@odata.id" of each member of a collection body.
inline std::vector<std::string> memberLinks(const nlohmann::json& collection) {
  std::vector<std::string> out;
  const auto* members = member(collection, "Members");
  if (!members || !members->is_array()) return out;
  for (const auto& item : *members) {
    auto link = stringAt(item, "@odata.id");
    if (!link.empty()) out.push_back(link);
  }
  return out;
}

inline std::string trimSlash(std::string path) {
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  return path;
}

inline std::string lower(std::string_view text) {
  std::string out(text);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

inline bool contains(const std::vector<std::string>& values, std::string_view value) {
  for (const auto& v : values) {
    if (v == value) return true;
  }
  return false;
}

}  // namespace sim::model

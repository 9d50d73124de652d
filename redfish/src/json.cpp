#include "redfish/json.hpp"

#include <nlohmann/json.hpp>

#include "redfish/errors.hpp"

namespace redfish {
namespace {

// Nesting depth outside string literals; an O(n) pre-scan so a hostile body cannot make the
// parser (or the recursive destructor) run deep.
int maxNesting(std::string_view text) {
  int depth = 0;
  int deepest = 0;
  bool inString = false;
  bool escaped = false;
  for (char c : text) {
    if (inString) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        inString = false;
      }
      continue;
    }
    if (c == '"') {
      inString = true;
    } else if (c == '{' || c == '[') {
      deepest = std::max(deepest, ++depth);
    } else if (c == '}' || c == ']') {
      --depth;
    }
  }
  return deepest;
}

}  // namespace

common::Result<Json> parseBody(std::string_view body, std::string_view url, ParseLimits limits) {
  if (body.empty()) return malformedResponse(url, "the body is empty");
  if (body.size() > limits.maxBytes) {
    return malformedResponse(url, "the body is " + std::to_string(body.size()) +
                                      " bytes, over the limit of " +
                                      std::to_string(limits.maxBytes));
  }
  if (maxNesting(body) > limits.maxDepth) {
    return malformedResponse(url, "the body nests deeper than " + std::to_string(limits.maxDepth));
  }
  Json parsed = Json::parse(body.begin(), body.end(), nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded()) return malformedResponse(url, "the body is not valid JSON");
  return parsed;
}

const Json* member(const Json& object, std::string_view key) {
  if (!object.is_object()) return nullptr;
  auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

std::optional<std::string> stringAt(const Json& object, std::string_view key) {
  const Json* value = member(object, key);
  if (value == nullptr || !value->is_string()) return std::nullopt;
  return value->get<std::string>();
}

std::optional<std::int64_t> intAt(const Json& object, std::string_view key) {
  const Json* value = member(object, key);
  if (value == nullptr || !value->is_number_integer()) return std::nullopt;
  return value->get<std::int64_t>();
}

std::optional<double> numberAt(const Json& object, std::string_view key) {
  const Json* value = member(object, key);
  if (value == nullptr || !value->is_number()) return std::nullopt;
  return value->get<double>();
}

std::optional<bool> boolAt(const Json& object, std::string_view key) {
  const Json* value = member(object, key);
  if (value == nullptr || !value->is_boolean()) return std::nullopt;
  return value->get<bool>();
}

std::optional<std::string> odataId(const Json& object) {
  return stringAt(object, "@odata.id");
}

std::optional<std::string> odataLink(const Json& object, std::string_view key) {
  const Json* value = member(object, key);
  return value == nullptr ? std::nullopt : odataId(*value);
}

const Json* at(const Json& object, std::initializer_list<std::string_view> path) {
  const Json* current = &object;
  for (std::string_view key : path) {
    current = member(*current, key);
    if (current == nullptr) return nullptr;
  }
  return current;
}

std::vector<std::string> memberLinks(const Json& object, std::string_view key) {
  std::vector<std::string> links;
  const Json* members = member(object, key);
  if (members == nullptr || !members->is_array()) return links;
  for (const Json& entry : *members) {
    if (auto id = odataId(entry)) links.push_back(std::move(*id));
  }
  return links;
}

}  // namespace redfish

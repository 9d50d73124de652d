#include "provisioner/http/json_input.hpp"

#include <nlohmann/json.hpp>

namespace provisioner::http {
namespace {

using common::invalidArgument;

// Depth of [ and { outside strings, measured before parsing so that deep input never reaches the
// (recursive) parser or destructor.
bool exceedsDepth(std::string_view text, int limit) {
  int depth = 0;
  bool in_string = false;
  bool escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > limit) return true;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return false;
}

// Line and column (1-based) of a byte offset, so errors never quote the body back.
std::string positionOf(std::string_view text, std::size_t byte) {
  std::size_t line = 1;
  std::size_t column = 1;
  for (std::size_t i = 0; i < text.size() && i + 1 < byte; ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return "line " + std::to_string(line) + ", column " + std::to_string(column);
}

std::string typeName(const nlohmann::json& value) {
  return value.type_name();
}

}  // namespace

common::Result<nlohmann::json> parseJsonObject(std::string_view body) {
  if (exceedsDepth(body, kMaxJsonDepth)) {
    return invalidArgument(
        "invalid_body", "JSON nesting is deeper than " + std::to_string(kMaxJsonDepth) + " levels");
  }
  nlohmann::json parsed;
  try {
    parsed = nlohmann::json::parse(body.begin(), body.end());
  } catch (const nlohmann::json::parse_error& e) {
    return invalidArgument("malformed_json",
                           "the body is not valid JSON (at " + positionOf(body, e.byte) + ")");
  } catch (const std::exception&) {
    return invalidArgument("malformed_json", "the body is not valid JSON");
  }
  if (!parsed.is_object()) {
    return invalidArgument("invalid_body",
                           "the body must be a JSON object, not " + typeName(parsed));
  }
  return parsed;
}

FieldReader::FieldReader(const nlohmann::json& object, std::string path)
    : object_(&object), path_(std::move(path)) {}

std::string FieldReader::pathOf(std::string_view name) const {
  if (path_.empty()) return std::string(name);
  return path_ + "." + std::string(name);
}

const nlohmann::json* FieldReader::find(std::string_view name) const {
  if (!object_->is_object()) return nullptr;
  auto it = object_->find(name);
  if (it == object_->end() || it->is_null()) return nullptr;
  return &*it;
}

bool FieldReader::has(std::string_view name) const {
  return find(name) != nullptr;
}

common::Error FieldReader::missing(std::string_view name) const {
  return invalidArgument("missing_field", "field '" + pathOf(name) + "' is required", pathOf(name));
}

common::Error FieldReader::invalid(std::string_view name, std::string_view expected) const {
  return invalidArgument("invalid_field",
                         "field '" + pathOf(name) + "' must be " + std::string(expected),
                         pathOf(name));
}

common::Result<std::optional<std::string>> FieldReader::optionalString(
    std::string_view name, std::size_t max_length) const {
  const auto* value = find(name);
  if (value == nullptr) return std::optional<std::string>{};
  if (!value->is_string()) return invalid(name, "a string, not " + typeName(*value));
  const auto& text = value->get_ref<const std::string&>();
  if (text.size() > max_length) {
    return invalid(name, "at most " + std::to_string(max_length) + " bytes long");
  }
  // JSON allows \u0000; PostgreSQL's text does not, and C APIs would cut the string there.
  if (text.find('\0') != std::string::npos) return invalid(name, "free of NUL characters");
  return std::optional<std::string>(text);
}

common::Result<std::string> FieldReader::requiredString(std::string_view name,
                                                        std::size_t max_length) const {
  auto text = optionalString(name, max_length);
  if (!text) return std::move(text).error();
  if (!text->has_value()) return missing(name);
  if ((*text)->empty()) return invalid(name, "a non-empty string");
  return std::move(**text);
}

common::Result<std::optional<std::int64_t>> FieldReader::optionalInt(std::string_view name,
                                                                     std::int64_t min,
                                                                     std::int64_t max) const {
  const auto* value = find(name);
  if (value == nullptr) return std::optional<std::int64_t>{};
  const std::string range = "an integer from " + std::to_string(min) + " to " + std::to_string(max);
  if (value->is_number_unsigned()) {
    const auto number = value->get<std::uint64_t>();
    if (max < 0 || number > static_cast<std::uint64_t>(max)) return invalid(name, range);
    return std::optional<std::int64_t>(static_cast<std::int64_t>(number));
  }
  if (!value->is_number_integer()) return invalid(name, range + ", not " + typeName(*value));
  const auto number = value->get<std::int64_t>();
  if (number < min || number > max) return invalid(name, range);
  return std::optional<std::int64_t>(number);
}

common::Result<std::int64_t> FieldReader::requiredInt(std::string_view name, std::int64_t min,
                                                      std::int64_t max) const {
  auto number = optionalInt(name, min, max);
  if (!number) return std::move(number).error();
  if (!number->has_value()) return missing(name);
  return **number;
}

common::Result<std::optional<bool>> FieldReader::optionalBool(std::string_view name) const {
  const auto* value = find(name);
  if (value == nullptr) return std::optional<bool>{};
  if (!value->is_boolean()) return invalid(name, "true or false, not " + typeName(*value));
  return std::optional<bool>(value->get<bool>());
}

common::Result<std::vector<FieldReader>> FieldReader::arrayOfObjects(std::string_view name) const {
  std::vector<FieldReader> readers;
  const auto* value = find(name);
  if (value == nullptr) return readers;
  if (!value->is_array()) return invalid(name, "an array of objects, not " + typeName(*value));
  readers.reserve(value->size());
  for (std::size_t i = 0; i < value->size(); ++i) {
    const std::string element_path = pathOf(name) + "[" + std::to_string(i) + "]";
    const auto& element = (*value)[i];
    if (!element.is_object()) {
      return invalidArgument(
          "invalid_field",
          "field '" + element_path + "' must be an object, not " + typeName(element), element_path);
    }
    readers.emplace_back(element, element_path);
  }
  return readers;
}

common::Result<std::vector<std::string>> FieldReader::arrayOfStrings(std::string_view name,
                                                                     std::size_t max_length) const {
  std::vector<std::string> strings;
  const auto* value = find(name);
  if (value == nullptr) return strings;
  if (!value->is_array()) return invalid(name, "an array of strings, not " + typeName(*value));
  for (std::size_t i = 0; i < value->size(); ++i) {
    const auto& element = (*value)[i];
    if (!element.is_string() || element.get_ref<const std::string&>().size() > max_length) {
      const std::string element_path = pathOf(name) + "[" + std::to_string(i) + "]";
      return invalidArgument("invalid_field",
                             "field '" + element_path + "' must be a string of at most " +
                                 std::to_string(max_length) + " bytes",
                             element_path);
    }
    strings.push_back(element.get<std::string>());
  }
  return strings;
}

common::Result<std::optional<FieldReader>> FieldReader::optionalObject(
    std::string_view name) const {
  const auto* value = find(name);
  if (value == nullptr) return std::optional<FieldReader>{};
  if (!value->is_object()) return invalid(name, "an object, not " + typeName(*value));
  return std::optional<FieldReader>(FieldReader(*value, pathOf(name)));
}

}  // namespace provisioner::http

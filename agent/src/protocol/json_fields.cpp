#include "protocol/json_fields.hpp"

#include <cmath>
#include <limits>
#include <sstream>

namespace agent::json_fields {

using common::Result;

std::string joinPath(std::string_view parent, std::string_view key) {
  if (parent.empty()) return std::string(key);
  return std::string(parent) + "." + std::string(key);
}

ObjectReader::ObjectReader(const nlohmann::json& object, std::string path, std::string code)
    : object_(object), path_(std::move(path)), code_(std::move(code)) {}

Result<void> ObjectReader::requireObject() const {
  if (object_.is_object()) return common::success();
  std::string where = path_.empty() ? "the body" : path_;
  return common::invalidArgument(code_, where + " must be a JSON object", path_);
}

const nlohmann::json* ObjectReader::find(std::string_view key) const {
  if (!object_.is_object()) return nullptr;
  auto it = object_.find(key);
  if (it == object_.end() || it->is_null()) return nullptr;
  return &*it;
}

std::string ObjectReader::pathOf(std::string_view key) const {
  return joinPath(path_, key);
}

std::string ObjectReader::pathOf(std::string_view key, std::size_t index) const {
  return pathOf(key) + "[" + std::to_string(index) + "]";
}

common::Error ObjectReader::error(std::string_view key, const std::string& message) const {
  std::string field = pathOf(key);
  return common::invalidArgument(code_, field + ": " + message, field);
}

Result<const nlohmann::json*> ObjectReader::member(std::string_view key, Need need) const {
  const nlohmann::json* value = find(key);
  if (value == nullptr && need == Need::kRequired) return error(key, "is required");
  return value;
}

Result<void> ObjectReader::readString(std::string_view key, std::string& out, Need need,
                                      bool allow_empty, std::size_t max_length) const {
  PROV_ASSIGN(const nlohmann::json* value, member(key, need));
  if (value == nullptr) return common::success();
  const auto* text = value->get_ptr<const std::string*>();
  if (text == nullptr) return error(key, "must be a string");
  if (text->size() > max_length) {
    return error(key, "is longer than " + std::to_string(max_length) + " characters");
  }
  if (!allow_empty && text->empty()) return error(key, "must not be empty");
  out = *text;
  return common::success();
}

Result<void> ObjectReader::readInt(std::string_view key, std::int64_t& out, std::int64_t min,
                                   std::int64_t max, Need need) const {
  PROV_ASSIGN(const nlohmann::json* value, member(key, need));
  if (value == nullptr) return common::success();
  std::string range = "[" + std::to_string(min) + ", " + std::to_string(max) + "]";
  if (const auto* u = value->get_ptr<const nlohmann::json::number_unsigned_t*>()) {
    if (*u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) ||
        static_cast<std::int64_t>(*u) > max || static_cast<std::int64_t>(*u) < min) {
      return error(key, "must be an integer in " + range);
    }
    out = static_cast<std::int64_t>(*u);
    return common::success();
  }
  const auto* i = value->get_ptr<const nlohmann::json::number_integer_t*>();
  if (i == nullptr || *i < min || *i > max) return error(key, "must be an integer in " + range);
  out = *i;
  return common::success();
}

Result<void> ObjectReader::readInt(std::string_view key, int& out, int min, int max,
                                   Need need) const {
  std::int64_t wide = out;
  PROV_TRY(readInt(key, wide, min, max, need));
  out = static_cast<int>(wide);
  return common::success();
}

Result<void> ObjectReader::readUnsigned(std::string_view key, std::uint64_t& out, Need need,
                                        std::uint64_t max) const {
  PROV_ASSIGN(const nlohmann::json* value, member(key, need));
  if (value == nullptr) return common::success();
  std::string message = "must be an integer in [0, " + std::to_string(max) + "]";
  if (const auto* u = value->get_ptr<const nlohmann::json::number_unsigned_t*>()) {
    if (*u > max) return error(key, message);
    out = *u;
    return common::success();
  }
  const auto* i = value->get_ptr<const nlohmann::json::number_integer_t*>();
  if (i == nullptr || *i < 0 || static_cast<std::uint64_t>(*i) > max) return error(key, message);
  out = static_cast<std::uint64_t>(*i);
  return common::success();
}

Result<void> ObjectReader::readDouble(std::string_view key, double& out, double min, double max,
                                      Need need) const {
  PROV_ASSIGN(const nlohmann::json* value, member(key, need));
  if (value == nullptr) return common::success();
  if (!value->is_number()) return error(key, "must be a number");
  double number = value->get<double>();  // does not throw: the type was checked
  if (!std::isfinite(number) || number < min || number > max) {
    std::ostringstream range;
    range << "must be a number in [" << min << ", " << max << "]";
    return error(key, range.str());
  }
  out = number;
  return common::success();
}

Result<void> ObjectReader::readBool(std::string_view key, bool& out, Need need) const {
  PROV_ASSIGN(const nlohmann::json* value, member(key, need));
  if (value == nullptr) return common::success();
  if (!value->is_boolean()) return error(key, "must be true or false");
  out = value->get<bool>();
  return common::success();
}

Result<const nlohmann::json*> ObjectReader::readArray(std::string_view key, std::size_t max_items,
                                                      Need need) const {
  PROV_ASSIGN(const nlohmann::json* value, member(key, need));
  if (value == nullptr) return value;
  if (!value->is_array()) return error(key, "must be an array");
  if (value->size() > max_items) {
    return error(key, "has more than " + std::to_string(max_items) + " items");
  }
  return value;
}

}  // namespace agent::json_fields

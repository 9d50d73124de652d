// Never-throwing parsing of untrusted JSON request bodies, and typed field access that names the
// offending field ("assets[3].bmc_mac") in its errors.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "common/result.hpp"

namespace provisioner::http {

inline constexpr int kMaxJsonDepth = 64;
inline constexpr std::size_t kDefaultMaxStringLength = 4096;

// Parses a body that must be a JSON object. Errors (all invalid_argument): "malformed_json" with
// the line and column, "invalid_body" for a non-object or nesting deeper than kMaxJsonDepth.
common::Result<nlohmann::json> parseJsonObject(std::string_view body);

// Reads typed fields of one JSON object. Holds a pointer: the json must outlive the reader.
// Absent and null are the same for optional fields. Unknown fields are ignored.
// Errors: "missing_field" and "invalid_field" (the message says what was expected), with
// Error::field set to the full path of the field.
class FieldReader {
 public:
  explicit FieldReader(const nlohmann::json& object, std::string path = {});

  common::Result<std::string> requiredString(
      std::string_view name, std::size_t max_length = kDefaultMaxStringLength) const;
  common::Result<std::optional<std::string>> optionalString(
      std::string_view name, std::size_t max_length = kDefaultMaxStringLength) const;

  common::Result<std::int64_t> requiredInt(
      std::string_view name, std::int64_t min = std::numeric_limits<std::int64_t>::min(),
      std::int64_t max = std::numeric_limits<std::int64_t>::max()) const;
  common::Result<std::optional<std::int64_t>> optionalInt(
      std::string_view name, std::int64_t min = std::numeric_limits<std::int64_t>::min(),
      std::int64_t max = std::numeric_limits<std::int64_t>::max()) const;

  common::Result<std::optional<bool>> optionalBool(std::string_view name) const;

  // An array of objects; an absent or null field is an empty array. Readers carry the element
  // path ("assets[3]"), so their errors name "assets[3].model".
  common::Result<std::vector<FieldReader>> arrayOfObjects(std::string_view name) const;
  // An array of strings; absent or null is empty.
  common::Result<std::vector<std::string>> arrayOfStrings(
      std::string_view name, std::size_t max_length = kDefaultMaxStringLength) const;
  // A nested object, or nullopt when absent or null.
  common::Result<std::optional<FieldReader>> optionalObject(std::string_view name) const;

  // True when the field is present and not null.
  bool has(std::string_view name) const;
  // The path a field of this object is reported under: "po_number", "assets[3].model".
  std::string pathOf(std::string_view name) const;
  const std::string& path() const { return path_; }
  const nlohmann::json& json() const { return *object_; }

 private:
  const nlohmann::json* find(std::string_view name) const;
  common::Error missing(std::string_view name) const;
  common::Error invalid(std::string_view name, std::string_view expected) const;

  const nlohmann::json* object_;
  std::string path_;
};

}  // namespace provisioner::http

// Non-throwing, path-aware reading of untrusted JSON objects for the agent protocol: each accessor
// checks type, presence, range and length, and its error names the field ("gpus[2].serial").
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "common/result.hpp"

namespace agent::json_fields {

inline constexpr std::size_t kMaxStringLength = 256;

enum class Need { kRequired, kOptional };

// Reads the members of one JSON object. `path` is where the object sits ("" for the root,
// "gpus[2]"); `code` is the error code every failure carries ("invalid_facts").
class ObjectReader {
 public:
  ObjectReader(const nlohmann::json& object, std::string path, std::string code);

  // Fails unless the value is a JSON object; call first.
  common::Result<void> requireObject() const;
  // The member, or nullptr when absent or null.
  const nlohmann::json* find(std::string_view key) const;
  std::string pathOf(std::string_view key) const;
  std::string pathOf(std::string_view key, std::size_t index) const;
  common::Error error(std::string_view key, const std::string& message) const;
  const std::string& code() const { return code_; }

  // Each leaves `out` untouched when an optional member is absent.
  common::Result<void> readString(std::string_view key, std::string& out, Need need,
                                  bool allow_empty = true,
                                  std::size_t max_length = kMaxStringLength) const;
  common::Result<void> readInt(std::string_view key, std::int64_t& out, std::int64_t min,
                               std::int64_t max, Need need) const;
  common::Result<void> readInt(std::string_view key, int& out, int min, int max, Need need) const;
  common::Result<void> readUnsigned(std::string_view key, std::uint64_t& out, Need need,
                                    std::uint64_t max = UINT64_MAX) const;
  common::Result<void> readDouble(std::string_view key, double& out, double min, double max,
                                  Need need) const;
  common::Result<void> readBool(std::string_view key, bool& out, Need need) const;
  // The member as an array of at most `max_items`; nullptr when optional and absent.
  common::Result<const nlohmann::json*> readArray(std::string_view key, std::size_t max_items,
                                                  Need need) const;

 private:
  common::Result<const nlohmann::json*> member(std::string_view key, Need need) const;

  const nlohmann::json& object_;
  std::string path_;
  std::string code_;
};

// "gpus" + 2 -> "gpus[2]"; "" + "x" -> "x"; "plan" + "tests" -> "plan.tests".
std::string joinPath(std::string_view parent, std::string_view key);

}  // namespace agent::json_fields

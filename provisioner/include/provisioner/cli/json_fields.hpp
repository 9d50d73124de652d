// Exception-free reads of server JSON for display: a wrong shape gives empty text, never a throw.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace provisioner::cli {

// The member as text: strings as-is, numbers and booleans printed, null or absent as "".
std::string text(const nlohmann::json& object, std::string_view key);

// Same for a scalar value.
std::string scalarText(const nlohmann::json& value);

// The member if it is an array, else an empty array.
const nlohmann::json& arrayField(const nlohmann::json& object, std::string_view key);

// A number member with `decimals` digits after the point; other members as text().
std::string fixed(const nlohmann::json& object, std::string_view key, int decimals);
// The member if it is an object, else an empty object.
const nlohmann::json& objectField(const nlohmann::json& object, std::string_view key);

}  // namespace provisioner::cli

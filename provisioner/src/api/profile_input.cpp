#include "profile_input.hpp"

#include <nlohmann/json.hpp>

#include "input.hpp"

namespace provisioner::api {
namespace {

constexpr std::size_t kMaxBiosSettings = 512;
constexpr std::size_t kMaxFirmwareEntries = 64;

common::Error invalidField(const std::string& field, const std::string& message) {
  return common::invalidArgument("invalid_field", message, field);
}

bool isHttpUrl(const std::string& s) {
  return (s.rfind("http://", 0) == 0 && s.size() > 7) ||
         (s.rfind("https://", 0) == 0 && s.size() > 8);
}

}  // namespace

common::Result<std::string> biosSettingsField(const http::FieldReader& in) {
  PROV_ASSIGN(auto settings, in.optionalObject("bios_settings"));
  if (!settings) return std::string("{}");
  const auto& object = settings->json();
  if (object.size() > kMaxBiosSettings) {
    return common::fail(
        invalidField("bios_settings", "bios_settings holds at most 512 attributes"));
  }
  for (const auto& [name, value] : object.items()) {
    const std::string field = in.pathOf("bios_settings") + "." + name;
    if (name.empty() || name.size() > 128) {
      return common::fail(invalidField(field, "BIOS attribute names are 1 to 128 characters"));
    }
    if (!value.is_string() && !value.is_number() && !value.is_boolean()) {
      return common::fail(
          invalidField(field, "field '" + field + "' must be a string, number or boolean"));
    }
  }
  return object.dump();
}

common::Result<std::string> minFirmwareField(const http::FieldReader& in) {
  PROV_ASSIGN(auto entries, in.arrayOfObjects("min_firmware"));
  if (entries.size() > kMaxFirmwareEntries) {
    return common::fail(invalidField("min_firmware", "min_firmware holds at most 64 entries"));
  }
  nlohmann::json out = nlohmann::json::array();
  for (const auto& entry : entries) {
    PROV_ASSIGN(auto match, requiredText(entry, "match", 128));
    PROV_ASSIGN(auto version, requiredText(entry, "version", 64));
    PROV_ASSIGN(auto uri, requiredText(entry, "image_uri", 2048));
    if (!isHttpUrl(uri)) {
      const auto field = entry.pathOf("image_uri");
      return common::fail(invalidField(field, "field '" + field + "' must be an http(s):// URL"));
    }
    out.push_back({{"match", match}, {"version", version}, {"image_uri", uri}});
  }
  return out.dump();
}

}  // namespace provisioner::api

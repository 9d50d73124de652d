#include "redfish/bios.hpp"

#include <algorithm>

#include "http_util.hpp"
#include "redfish/errors.hpp"

namespace redfish {
namespace {

common::Error attributeError(std::string_view code, std::string message, const std::string& name) {
  return common::Error{
      common::ErrorKind::kInvalidArgument, std::string(code), std::move(message), name, {}};
}

bool typeMatches(const std::string& type, const Json& value) {
  if (type == "Enumeration" || type == "String" || type == "Password") return value.is_string();
  if (type == "Integer") return value.is_number_integer();
  if (type == "Boolean") return value.is_boolean();
  return true;  // unknown registry types are not second-guessed
}

common::Result<void> validateOne(const BiosRegistry& registry, const std::string& name,
                                 const Json& value) {
  auto found = registry.attributes.find(name);
  if (found == registry.attributes.end()) {
    return attributeError(codes::kUnknownAttribute,
                          "BIOS attribute " + name + " is not in the registry", name);
  }
  const BiosAttributeDef& def = found->second;
  if (def.readOnly) {
    return attributeError(codes::kReadOnly, "BIOS attribute " + name + " is read-only", name);
  }
  if (!typeMatches(def.type, value)) {
    return attributeError(codes::kWrongType,
                          "BIOS attribute " + name + " takes a " + def.type + " value", name);
  }
  if (def.type == "Enumeration" && !def.allowedValues.empty()) {
    const std::string text = value.get<std::string>();
    if (std::find(def.allowedValues.begin(), def.allowedValues.end(), text) ==
        def.allowedValues.end()) {
      return ops::notAllowed(name, text, def.allowedValues);
    }
  }
  if (def.type == "Integer") {
    const auto number = value.get<std::int64_t>();
    if ((def.lowerBound && number < *def.lowerBound) ||
        (def.upperBound && number > *def.upperBound)) {
      return attributeError(codes::kNotAllowed,
                            "BIOS attribute " + name + " value " + std::to_string(number) +
                                " is outside " + std::to_string(def.lowerBound.value_or(0)) + ".." +
                                std::to_string(def.upperBound.value_or(0)),
                            name);
    }
  }
  return common::success();
}

std::string englishLocation(const Json& file) {
  std::string first;
  const Json* locations = member(file, "Location");
  if (locations == nullptr || !locations->is_array()) return first;
  for (const Json& location : *locations) {
    auto uri = stringAt(location, "Uri");
    if (!uri) uri = stringAt(location, "PublicationUri");
    if (!uri) continue;
    if (stringAt(location, "Language").value_or("").rfind("en", 0) == 0) return *uri;
    if (first.empty()) first = *uri;
  }
  return first;
}

// The Registries member for `name`: the same id, else the same family (text before the first
// '.', Dell lists BiosAttributeRegistry.v1_0_0 for BiosAttributeRegistry.v1_0_3).
std::optional<std::string> registryMember(const std::vector<std::string>& links,
                                          const std::string& name) {
  auto lastSegment = [](const std::string& link) {
    std::string trimmed = link;
    while (trimmed.size() > 1 && trimmed.back() == '/') trimmed.pop_back();
    return trimmed.substr(trimmed.rfind('/') + 1);
  };
  for (const auto& link : links) {
    if (lastSegment(link) == name) return link;
  }
  const std::string family = name.substr(0, name.find('.'));
  for (const auto& link : links) {
    const std::string id = lastSegment(link);
    if (id.substr(0, id.find('.')) == family) return link;
  }
  return std::nullopt;
}

}  // namespace

common::Result<BiosInfo> readBios(Client& client, const std::string& systemPath) {
  PROV_ASSIGN(auto system, ops::getResource(client, systemPath));
  auto biosPath = odataLink(system.body, "Bios");
  if (!biosPath) return ops::notSupported("system " + systemPath + " has no Bios resource");
  PROV_ASSIGN(auto bios, ops::getResource(client, *biosPath));
  BiosInfo info;
  info.biosPath = *biosPath;
  info.etag = bios.etag;
  if (const Json* attributes = member(bios.body, "Attributes");
      attributes && attributes->is_object()) {
    info.attributes = *attributes;
  }
  info.registryName = stringAt(bios.body, "AttributeRegistry").value_or("");
  if (const Json* settings = member(bios.body, "@Redfish.Settings")) {
    info.settingsPath = odataLink(*settings, "SettingsObject").value_or("");
    if (const Json* times = member(*settings, "SupportedApplyTimes"); times && times->is_array()) {
      for (const Json& time : *times) {
        if (time.is_string()) info.supportedApplyTimes.push_back(time.get<std::string>());
      }
    }
  }
  if (const Json* reset = at(bios.body, {"Actions", "#Bios.ResetBios"})) {
    info.resetBiosTarget = stringAt(*reset, "target").value_or("");
  }
  return info;
}

BiosRegistry parseBiosRegistry(const Json& registry) {
  BiosRegistry out;
  const Json* list = at(registry, {"RegistryEntries", "Attributes"});
  if (list == nullptr || !list->is_array()) return out;
  for (const Json& entry : *list) {
    BiosAttributeDef def;
    def.name = stringAt(entry, "AttributeName").value_or("");
    if (def.name.empty()) continue;
    def.type = stringAt(entry, "Type").value_or("");
    def.readOnly =
        boolAt(entry, "ReadOnly").value_or(false) || boolAt(entry, "Immutable").value_or(false);
    def.lowerBound = intAt(entry, "LowerBound");
    def.upperBound = intAt(entry, "UpperBound");
    if (const Json* values = member(entry, "Value"); values && values->is_array()) {
      for (const Json& value : *values) {
        if (auto name = stringAt(value, "ValueName")) def.allowedValues.push_back(*name);
      }
    }
    out.attributes[def.name] = std::move(def);
  }
  return out;
}

common::Result<BiosRegistry> readBiosRegistry(Client& client, const BiosInfo& bios) {
  if (bios.registryName.empty()) return ops::notSupported("the Bios names no AttributeRegistry");
  PROV_ASSIGN(auto root, ops::getResource(client, "/redfish/v1"));
  auto registriesPath = odataLink(root.body, "Registries");
  if (!registriesPath) return ops::notSupported("the service root links no Registries");
  PROV_ASSIGN(auto registries, ops::getResource(client, *registriesPath));
  auto filePath = registryMember(memberLinks(registries.body), bios.registryName);
  if (!filePath) {
    return ops::notSupported("no registry file for " + bios.registryName + " under " +
                             *registriesPath);
  }
  PROV_ASSIGN(auto file, ops::getResource(client, *filePath));
  std::string location = englishLocation(file.body);
  if (location.empty()) return malformedResponse(*filePath, "the registry file has no Location");
  PROV_ASSIGN(auto registry, ops::getResource(client, ops::pathOf(location)));
  BiosRegistry parsed = parseBiosRegistry(registry.body);
  parsed.uri = ops::pathOf(location);
  if (parsed.attributes.empty()) {
    return malformedResponse(parsed.uri, "the registry lists no attributes");
  }
  return parsed;
}

common::Result<void> validateBiosAttributes(const BiosRegistry& registry, const Json& desired) {
  if (!desired.is_object()) {
    return common::invalidArgument("invalid_bios_attributes", "BIOS attributes must be an object");
  }
  for (const auto& item : desired.items())
    PROV_TRY(validateOne(registry, item.key(), item.value()));
  return common::success();
}

Json biosDiff(const Json& current, const Json& desired) {
  Json diff = Json::object();
  if (!desired.is_object()) return diff;
  for (const auto& item : desired.items()) {
    const Json* now = member(current, item.key());
    if (now == nullptr || *now != item.value()) diff[item.key()] = item.value();
  }
  return diff;
}

namespace {

// Dell: the PATCH usually answers with the job it created; otherwise create one for the settings.
common::Result<std::optional<TaskRef>> dellConfigJob(Client& client, const Response& patched,
                                                     const std::string& settingsPath) {
  if (auto job = taskRefFrom(patched)) return std::optional<TaskRef>(*job);
  PROV_ASSIGN(auto root, ops::getResource(client, "/redfish/v1"));
  auto managersPath = odataLink(root.body, "Managers");
  if (!managersPath) return std::optional<TaskRef>();
  PROV_ASSIGN(auto managers, ops::getResource(client, *managersPath));
  for (const auto& link : memberLinks(managers.body)) {
    PROV_ASSIGN(auto manager, ops::getResource(client, link));
    const Json* dellLinks = at(manager.body, {"Links", "Oem", "Dell"});
    auto jobs = dellLinks ? odataLink(*dellLinks, "Jobs") : std::nullopt;
    if (!jobs) continue;
    PROV_ASSIGN(auto created,
                ops::postJson(client, *jobs, Json{{"TargetSettingsURI", settingsPath}}));
    return taskRefFrom(created);
  }
  return std::optional<TaskRef>();
}

}  // namespace

common::Result<BiosApplyResult> applyBiosSettings(Client& client, const std::string& systemPath,
                                                  const Json& desired, const Quirks& quirks,
                                                  const BiosRegistry* registry) {
  if (registry != nullptr) PROV_TRY(validateBiosAttributes(*registry, desired));
  PROV_ASSIGN(auto bios, readBios(client, systemPath));
  BiosApplyResult result;
  result.patched = biosDiff(bios.attributes, desired);
  if (result.patched.empty()) return result;
  std::string target = bios.settingsPath.empty() ? bios.biosPath : bios.settingsPath;
  std::string etag = bios.etag;
  if (!bios.settingsPath.empty()) {
    PROV_ASSIGN(auto settings, ops::getResource(client, bios.settingsPath));
    etag = settings.etag;
  }
  Json body = {{"Attributes", result.patched}};
  const auto& times = bios.supportedApplyTimes;
  if (std::find(times.begin(), times.end(), "OnReset") != times.end()) {
    body["@Redfish.SettingsApplyTime"] = {{"ApplyTime", "OnReset"}};
  }
  PROV_ASSIGN(auto response, ops::patchResource(client, target, body, etag, quirks));
  if (quirks.biosNeedsConfigJob && !bios.settingsPath.empty()) {
    PROV_ASSIGN(result.job, dellConfigJob(client, response, bios.settingsPath));
  } else {
    result.job = taskRefFrom(response);
  }
  return result;
}

common::Result<Json> readPendingBios(Client& client, const BiosInfo& bios) {
  if (bios.settingsPath.empty()) return Json::object();
  PROV_ASSIGN(auto settings, ops::getResource(client, bios.settingsPath));
  const Json* attributes = member(settings.body, "Attributes");
  return attributes != nullptr && attributes->is_object() ? *attributes : Json::object();
}

common::Result<std::vector<std::string>> biosNotApplied(Client& client,
                                                        const std::string& systemPath,
                                                        const Json& desired) {
  PROV_ASSIGN(auto bios, readBios(client, systemPath));
  std::vector<std::string> missing;
  const Json diff = biosDiff(bios.attributes, desired);
  for (const auto& item : diff.items()) missing.push_back(item.key());
  return missing;
}

common::Result<void> resetBiosToDefaults(Client& client, const std::string& systemPath) {
  PROV_ASSIGN(auto bios, readBios(client, systemPath));
  if (bios.resetBiosTarget.empty()) return ops::notSupported("the Bios has no ResetBios action");
  PROV_TRY(ops::postJson(client, bios.resetBiosTarget, Json::object()));
  return common::success();
}

}  // namespace redfish

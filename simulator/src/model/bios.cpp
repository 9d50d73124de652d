// BIOS settings: PATCHes to the settings object are validated against the attribute registry
// (or, without one, the current attributes' types), stay pending, and apply at the next boot.
// Dell: pending settings apply only once a configuration job exists (POST to the Jobs
// collection with TargetSettingsURI, or @Redfish.SettingsApplyTime in the PATCH).
#include "model/handlers.hpp"
#include "model/json_util.hpp"

namespace sim::model {
namespace {

const nlohmann::json* registryEntry(const ModelState& s, const std::string& name) {
  const auto* registry = s.profile->find(s.behaviour().biosRegistryPath);
  const auto* entries = registry ? member(*registry, "RegistryEntries") : nullptr;
  const auto* attributes = entries ? member(*entries, "Attributes") : nullptr;
  if (!attributes || !attributes->is_array()) return nullptr;
  for (const auto& entry : *attributes) {
    if (stringAt(entry, "AttributeName") == name) return &entry;
  }
  return nullptr;
}

const nlohmann::json* currentValue(const ModelState& s, const std::string& name) {
  if (const auto* applied = member(s.biosApplied, name)) return applied;
  const auto* bios = s.profile->find(s.behaviour().biosPath);
  const auto* attributes = bios ? member(*bios, "Attributes") : nullptr;
  return attributes ? member(*attributes, name) : nullptr;
}

std::string shown(const nlohmann::json& value) {
  return value.is_string() ? value.get<std::string>() : value.dump();
}

HttpResponse unknown(ModelState& s, const std::string& name) {
  return redfishError(
      s, 400, "PropertyUnknown",
      "The property " + name + " is not in the list of valid properties for the resource.", {name},
      "#/Attributes/" + name);
}

HttpResponse wrongType(ModelState& s, const std::string& name, const nlohmann::json& value) {
  return redfishError(s, 400, "PropertyValueTypeError",
                      "The value '" + shown(value) + "' for the property " + name +
                          " is of a different type than the property can accept.",
                      {shown(value), name}, "#/Attributes/" + name);
}

bool typeMatches(const std::string& type, const nlohmann::json& value) {
  if (type == "Enumeration" || type == "String" || type == "Password") return value.is_string();
  if (type == "Integer") return value.is_number_integer();
  if (type == "Boolean") return value.is_boolean();
  return true;
}

bool inValueList(const nlohmann::json& entry, const std::string& value) {
  const auto* values = member(entry, "Value");
  if (!values || !values->is_array()) return true;
  for (const auto& v : *values) {
    if (stringAt(v, "ValueName") == value) return true;
  }
  return false;
}

std::optional<HttpResponse> validate(ModelState& s, const std::string& name,
                                     const nlohmann::json& value) {
  if (s.behaviour().biosRegistryPath.empty()) {
    const auto* current = currentValue(s, name);
    if (!current) return unknown(s, name);
    if (current->type() != value.type() && !(current->is_number() && value.is_number_integer())) {
      return wrongType(s, name, value);
    }
    return std::nullopt;
  }
  const auto* entry = registryEntry(s, name);
  if (!entry) return unknown(s, name);
  if (const auto* readOnly = member(*entry, "ReadOnly"); readOnly && *readOnly == true) {
    return redfishError(
        s, 400, "PropertyNotWritable",
        "The property " + name + " is a read only property and cannot be assigned a value.", {name},
        "#/Attributes/" + name);
  }
  auto type = stringAt(*entry, "Type");
  if (!typeMatches(type, value)) return wrongType(s, name, value);
  if (type == "Enumeration" && !inValueList(*entry, value.get<std::string>())) {
    return redfishError(s, 400, "PropertyValueNotInList",
                        "The value '" + shown(value) + "' for the property " + name +
                            " is not in the list of acceptable values.",
                        {shown(value), name}, "#/Attributes/" + name);
  }
  return std::nullopt;
}

std::string scheduleDellJob(ModelState& s) {
  auto id = "JID_" + std::to_string(900000000000LL + s.nextId++);
  s.jobs.push_back(id);
  s.biosJobScheduled = true;
  return id;
}

}  // namespace

HttpResponse patchBiosSettings(ModelState& s, const nlohmann::json& body) {
  const auto* attributes = member(body, "Attributes");
  if (!attributes || !attributes->is_object()) {
    return redfishError(s, 400, "PropertyMissing",
                        "The property Attributes is a required property and must be included in "
                        "the request.",
                        {"Attributes"}, "#/Attributes");
  }
  for (const auto& [name, value] : attributes->items()) {
    if (auto refused = validate(s, name, value)) return *refused;
  }
  s.biosPending.update(*attributes);
  auto response = noContent();
  if (!s.behaviour().dellJobsPath.empty() && member(body, "@Redfish.SettingsApplyTime")) {
    response.status = 202;
    response.headers.emplace_back("Location",
                                  s.behaviour().dellJobsPath + "/" + scheduleDellJob(s));
  }
  return response;
}

HttpResponse resetBios(ModelState& s) {
  s.biosResetPending = true;
  s.biosPending = nlohmann::json::object();
  return noContent();
}

HttpResponse createDellJob(ModelState& s, const nlohmann::json& body) {
  auto target = trimSlash(stringAt(body, "TargetSettingsURI"));
  if (target != s.behaviour().biosSettingsPath) {
    return redfishError(s, 400, "PropertyValueNotInList",
                        "The value '" + target +
                            "' for the property TargetSettingsURI is not in the list of "
                            "acceptable values.",
                        {target, "TargetSettingsURI"}, "#/TargetSettingsURI");
  }
  if (s.biosPending.empty()) {
    return redfishError(s, 400, "ActionNotSupported",
                        "Pending configuration values are not present to create a configuration "
                        "job.");
  }
  auto response = HttpResponse::json(200, "{}");
  response.headers.emplace_back("Location", s.behaviour().dellJobsPath + "/" + scheduleDellJob(s));
  return response;
}

void applyBiosOnReset(ModelState& s) {
  if (s.biosResetPending) {
    s.biosApplied = nlohmann::json::object();  // back to the recorded (factory) values
    s.biosResetPending = false;
  }
  bool needsJob = !s.behaviour().dellJobsPath.empty();
  if (s.biosPending.empty() || (needsJob && !s.biosJobScheduled)) return;
  s.biosApplied.update(s.biosPending);
  s.biosPending = nlohmann::json::object();
  s.biosJobScheduled = false;
}

}  // namespace sim::model

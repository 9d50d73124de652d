#include "redfish/boot.hpp"

#include <algorithm>

#include "http_util.hpp"

namespace redfish {

std::string_view toString(BootTarget target) {
  switch (target) {
    case BootTarget::kPxe:
      return "Pxe";
    case BootTarget::kUefiHttp:
      return "UefiHttp";
    case BootTarget::kCd:
      return "Cd";
  }
  return "Pxe";
}

common::Result<void> setOneTimeBoot(Client& client, const std::string& systemPath,
                                    const BootOverride& boot, const Quirks& quirks) {
  PROV_ASSIGN(auto system, ops::getResource(client, systemPath));
  const Json* current = member(system.body, "Boot");
  if (current == nullptr || !current->is_object()) {
    return ops::notSupported("system " + systemPath + " has no Boot properties");
  }
  const std::string target(toString(boot.target));
  if (const Json* allowed = member(*current, "BootSourceOverrideTarget@Redfish.AllowableValues");
      allowed != nullptr && allowed->is_array()) {
    std::vector<std::string> values;
    for (const Json& value : *allowed) {
      if (value.is_string()) values.push_back(value.get<std::string>());
    }
    if (std::find(values.begin(), values.end(), target) == values.end()) {
      return ops::notAllowed("BootSourceOverrideTarget", target, values);
    }
  }
  Json patch = {{"BootSourceOverrideEnabled", "Once"}, {"BootSourceOverrideTarget", target}};
  if (boot.target == BootTarget::kUefiHttp && !boot.httpBootUri.empty()) {
    if (member(*current, "HttpBootUri") == nullptr) {
      return ops::notSupported("system " + systemPath + " does not advertise HttpBootUri");
    }
    patch["HttpBootUri"] = boot.httpBootUri;
  }
  if (quirks.bootOverrideSetsUefiMode) patch["BootSourceOverrideMode"] = "UEFI";
  PROV_TRY(ops::patchResource(client, systemPath, Json{{"Boot", patch}}, system.etag, quirks));
  return common::success();
}

common::Result<BootOverrideState> readBootOverride(Client& client, const std::string& systemPath) {
  PROV_ASSIGN(auto system, ops::getResource(client, systemPath));
  const Json* boot = member(system.body, "Boot");
  if (boot == nullptr || !boot->is_object()) {
    return ops::notSupported("system " + systemPath + " has no Boot properties");
  }
  BootOverrideState state;
  state.enabled = stringAt(*boot, "BootSourceOverrideEnabled").value_or("");
  state.target = stringAt(*boot, "BootSourceOverrideTarget").value_or("");
  return state;
}

bool oneTimeBootPending(const BootOverrideState& state, BootTarget target) {
  return state.enabled == "Once" && state.target == toString(target);
}

}  // namespace redfish

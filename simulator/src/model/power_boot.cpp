// Host power (lazy transitions against the simulated clock) and the boot override. A power-on
// is a boot: pending BIOS settings and reset-bound firmware apply, and the observer hears of it.
#include "model/handlers.hpp"
#include "model/json_util.hpp"

namespace sim::model {
namespace {

BootOverride& overrideFor(ModelState& s, const std::string& system) {
  auto it = s.boot.find(system);
  if (it != s.boot.end()) return it->second;
  BootOverride o;
  if (const auto* recorded = s.profile->find(system); recorded && member(*recorded, "Boot")) {
    const auto& boot = *member(*recorded, "Boot");
    o.target = stringAt(boot, "BootSourceOverrideTarget", "None");
    o.enabled = stringAt(boot, "BootSourceOverrideEnabled", "Disabled");
    o.mode = stringAt(boot, "BootSourceOverrideMode");
    o.httpBootUri = stringAt(boot, "HttpBootUri");
  }
  return s.boot.emplace(system, o).first->second;
}

void bootHost(ModelState& s) {
  applyBiosOnReset(s);
  applyFirmwareOnReset(s);
  const auto& hosts = s.behaviour().hostSystems;
  if (hosts.empty()) return;
  auto& o = overrideFor(s, hosts.front());
  BootEvent event{s.id, "None", {}};
  if (o.enabled != "Disabled" && o.target != "None") {
    event.target = s.faults.ignoreBootOverride ? "Hdd" : o.target;
    if (!s.faults.ignoreBootOverride) event.httpBootUri = o.httpBootUri;
    if (o.enabled == "Once") {
      o.enabled = "Disabled";
      o.target = "None";
    }
  }
  s.pendingBootEvents.push_back(event);
}

void powerOn(ModelState& s) {
  s.power.on = true;
  s.power.transitionEnd = s.now() + s.behaviour().powerOnSeconds;
  bootHost(s);
}

void powerOff(ModelState& s, bool graceful) {
  s.power.on = false;
  s.power.transitionEnd = graceful ? s.now() + s.behaviour().powerOffSeconds : 0;
}

HttpResponse notInList(ModelState& s, const std::string& value, const std::string& property,
                       const std::string& related) {
  return redfishError(s, 400, "PropertyValueNotInList",
                      "The value '" + value + "' for the property " + property +
                          " is not in the list of acceptable values.",
                      {value, property}, related);
}

}  // namespace

void advancePower(ModelState& s) {
  if (s.power.transitionEnd > 0 && s.now() >= s.power.transitionEnd) s.power.transitionEnd = 0;
}

std::string powerState(const ModelState& s) {
  if (s.power.transitionEnd > 0 && s.now() < s.power.transitionEnd) {
    return s.power.on ? "PoweringOn" : "PoweringOff";
  }
  return s.power.on ? "On" : "Off";
}

bool hostOn(const ModelState& s) {
  return powerState(s) == "On";
}

HttpResponse resetSystem(ModelState& s, const nlohmann::json& body) {
  const auto& b = s.behaviour();
  const auto* type = member(body, "ResetType");
  if (!type) {
    return redfishError(s, 400, "ActionParameterMissing",
                        "The action ComputerSystem.Reset requires the parameter ResetType to be "
                        "present in the request body.",
                        {"ComputerSystem.Reset", "ResetType"}, "#/ResetType");
  }
  auto value = type->is_string() ? type->get<std::string>() : type->dump();
  if (!type->is_string() || !contains(b.resetTypes, value)) {
    return redfishError(s, 400, "ActionParameterValueNotInList",
                        "The value '" + value +
                            "' for the parameter ResetType in the action "
                            "ComputerSystem.Reset is not in the list of acceptable values.",
                        {value, "ResetType", "ComputerSystem.Reset"}, "#/ResetType");
  }
  if (b.redundantPowerConflict &&
      ((value == "On" && s.power.on) || (value == "ForceOff" && !s.power.on))) {
    return redfishError(s, 409, "OperationNotAllowed",
                        std::string("Server is already powered ") + (s.power.on ? "ON." : "OFF."));
  }
  if (value == "On" || value == "ForceOn") {
    if (!s.power.on) powerOn(s);
  } else if (value == "ForceOff") {
    powerOff(s, false);
  } else if (value == "GracefulShutdown") {
    powerOff(s, true);
  } else if (value == "PushPowerButton") {
    s.power.on ? powerOff(s, true) : powerOn(s);
  } else if (value != "Nmi") {
    powerOn(s);  // ForceRestart, GracefulRestart, PowerCycle: the host boots again
  }
  return noContent();
}

// Chassis.Reset: ForceOff (or GracefulShutdown) takes the host down with the chassis's AC/aux
// power; the next On (or a restart) brings both back, and firmware that waits for a power cycle
// (HGX baseboards) shows its new version from then on. The host boots when it powers on.
HttpResponse resetChassis(ModelState& s, const std::string& chassis, const nlohmann::json& body) {
  const auto& types = s.behaviour().chassisResetTypes;
  auto allowed = types.count(chassis) ? types.at(chassis) : std::vector<std::string>{};
  const auto* type = member(body, "ResetType");
  if (!type) {
    return redfishError(s, 400, "ActionParameterMissing",
                        "The action Chassis.Reset requires the parameter ResetType to be present "
                        "in the request body.",
                        {"Chassis.Reset", "ResetType"}, "#/ResetType");
  }
  auto value = type->is_string() ? type->get<std::string>() : type->dump();
  if (!type->is_string() || !contains(allowed, value)) {
    return redfishError(s, 400, "ActionParameterValueNotInList",
                        "The value '" + value +
                            "' for the parameter ResetType in the action Chassis.Reset is not in "
                            "the list of acceptable values.",
                        {value, "ResetType", "Chassis.Reset"}, "#/ResetType");
  }
  bool off = !s.power.on || s.chassisOff;
  if (s.behaviour().redundantPowerConflict &&
      ((value == "On" && !off) || (value == "ForceOff" && off))) {
    return redfishError(s, 409, "OperationNotAllowed",
                        std::string("Chassis is already powered ") + (off ? "OFF." : "ON."));
  }
  if (value == "ForceOff" || value == "GracefulShutdown") {
    powerOff(s, value == "GracefulShutdown");
    s.chassisOff = true;
    return noContent();
  }
  if (s.chassisOff || value == "PowerCycle") applyFirmwareOnPowerCycle(s);
  s.chassisOff = false;
  bool restart = value != "On" && value != "ForceOn";
  if (!s.power.on || restart) powerOn(s);
  return noContent();
}

HttpResponse patchSystem(ModelState& s, const std::string& system, const nlohmann::json& body) {
  const auto& b = s.behaviour();
  const auto* boot = member(body, "Boot");
  if (!boot) return noContent();  // nothing the simulator models (AssetTag, ...)
  if (!boot->is_object()) {
    return redfishError(s, 400, "PropertyValueTypeError",
                        "The value for the property Boot is of a different type than the "
                        "property can accept.",
                        {boot->dump(), "Boot"}, "#/Boot");
  }
  auto target = stringAt(*boot, "BootSourceOverrideTarget");
  auto enabled = stringAt(*boot, "BootSourceOverrideEnabled");
  auto mode = stringAt(*boot, "BootSourceOverrideMode");
  if (member(*boot, "BootSourceOverrideTarget") && !contains(b.bootTargets, target)) {
    return notInList(s, target, "BootSourceOverrideTarget", "#/Boot/BootSourceOverrideTarget");
  }
  if (member(*boot, "BootSourceOverrideEnabled") && !contains(b.bootEnabledValues, enabled)) {
    return notInList(s, enabled, "BootSourceOverrideEnabled", "#/Boot/BootSourceOverrideEnabled");
  }
  if (member(*boot, "BootSourceOverrideMode") && !contains(b.bootModes, mode)) {
    return notInList(s, mode, "BootSourceOverrideMode", "#/Boot/BootSourceOverrideMode");
  }
  if (b.bootOverrideNeedsUefiMode && !target.empty() && target != "None" && mode != "UEFI") {
    return redfishError(s, 400, "PropertyMissing",
                        "The property BootSourceOverrideMode is a required property and must be "
                        "included in the request.",
                        {"BootSourceOverrideMode"}, "#/Boot/BootSourceOverrideMode");
  }
  auto& o = overrideFor(s, system);
  if (!target.empty()) o.target = target;
  if (!enabled.empty()) o.enabled = enabled;
  if (!mode.empty()) o.mode = mode;
  if (const auto* uri = member(*boot, "HttpBootUri"); uri && uri->is_string()) {
    o.httpBootUri = uri->get<std::string>();
  }
  return noContent();
}

}  // namespace sim::model

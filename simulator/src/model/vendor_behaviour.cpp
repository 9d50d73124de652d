// Vendor behaviour in ONE place: what is read from the recorded tree (action targets, allowable
// values, settings objects, collections) and the per-vendor table of quirks and limits.
#include "model/vendor_behaviour.hpp"

#include <algorithm>
#include <cctype>

#include "model/json_util.hpp"

namespace sim::model {
namespace {

const nlohmann::json kEmpty = nlohmann::json::object();

class TreeReader {
 public:
  explicit TreeReader(const Profile& profile) : profile_(profile) {}

  const nlohmann::json& at(const std::string& link) const {
    const auto* body = profile_.find(profile_.canonicalPath(link));
    return body ? *body : kEmpty;
  }
  std::string canonical(const std::string& link) const {
    return link.empty() ? std::string{} : profile_.canonicalPath(link);
  }
  std::string linkOf(const nlohmann::json& body, std::string_view key) const {
    return canonical(linkAt(body, key));
  }

 private:
  const Profile& profile_;
};

Vendor detectVendor(const nlohmann::json& root) {
  auto vendor = lower(stringAt(root, "Vendor"));
  auto text = lower(root.dump());
  if (vendor == "dell" || text.find("\"dell\"") != std::string::npos) return Vendor::kDell;
  if (vendor == "hpe" || text.find("\"hpe\"") != std::string::npos) return Vendor::kHpe;
  if (vendor == "lenovo" || text.find("\"lenovo\"") != std::string::npos) return Vendor::kLenovo;
  if (vendor == "ami" || text.find("\"ami\"") != std::string::npos) return Vendor::kAmi;
  if (text.find("supermicro") != std::string::npos) return Vendor::kSupermicro;
  return Vendor::kGeneric;
}

// Allowable values of `parameter` for an action: inline annotation first, then its ActionInfo.
std::vector<std::string> actionValues(const TreeReader& tree, const nlohmann::json& action,
                                      const std::string& parameter) {
  auto inline_ = stringsAt(action, parameter + "@Redfish.AllowableValues");
  if (!inline_.empty()) return inline_;
  const auto& info = tree.at(stringAt(action, "@Redfish.ActionInfo"));
  const auto* params = member(info, "Parameters");
  if (!params || !params->is_array()) return {};
  for (const auto& p : *params) {
    if (stringAt(p, "Name") == parameter) return stringsAt(p, "AllowableValues");
  }
  return {};
}

const nlohmann::json& actionOf(const nlohmann::json& body, std::string_view name) {
  const auto* actions = member(body, "Actions");
  const auto* action = actions ? member(*actions, name) : nullptr;
  return action ? *action : kEmpty;
}

void readSystems(const TreeReader& tree, const nlohmann::json& root, VendorBehaviour& b) {
  for (const auto& link : memberLinks(tree.at(linkAt(root, "Systems")))) {
    const auto& system = tree.at(link);
    if (member(system, "Actions") && member(*member(system, "Actions"), "#ComputerSystem.Reset")) {
      b.hostSystems.push_back(tree.canonical(link));
    } else if (b.vendor == Vendor::kAmi) {
      b.hostDependentPaths.push_back(tree.canonical(link));  // the HGX baseboard follows the host
    }
  }
  if (b.hostSystems.empty()) return;
  const auto& host = tree.at(b.hostSystems.front());
  const auto& reset = actionOf(host, "#ComputerSystem.Reset");
  b.resetTarget = stringAt(reset, "target");
  b.resetTypes = actionValues(tree, reset, "ResetType");
  if (b.resetTypes.empty()) b.resetTypes = {"On", "ForceOff", "GracefulShutdown", "ForceRestart"};
  const auto* boot = member(host, "Boot");
  const auto& bootBody = boot ? *boot : kEmpty;
  b.bootTargets = stringsAt(bootBody, "BootSourceOverrideTarget@Redfish.AllowableValues");
  if (b.bootTargets.empty())
    b.bootTargets = {"None", "Pxe", "Cd", "Usb", "Hdd", "BiosSetup", "UefiHttp", "UefiShell"};
  b.bootEnabledValues = stringsAt(bootBody, "BootSourceOverrideEnabled@Redfish.AllowableValues");
  if (b.bootEnabledValues.empty()) b.bootEnabledValues = {"Disabled", "Once", "Continuous"};
  b.bootModes = stringsAt(bootBody, "BootSourceOverrideMode@Redfish.AllowableValues");
  if (b.bootModes.empty()) b.bootModes = {"UEFI", "Legacy"};
  const auto* links = member(host, "Links");
  if (links) {
    const auto* chassis = member(*links, "Chassis");
    if (chassis && chassis->is_array() && !chassis->empty()) {
      b.mainChassis = tree.canonical(stringAt(chassis->front(), "@odata.id"));
    }
    const auto* managers = member(*links, "ManagedBy");
    if (managers && managers->is_array() && !managers->empty()) {
      b.managerPath = tree.canonical(stringAt(managers->front(), "@odata.id"));
    }
  }
  b.biosPath = tree.linkOf(host, "Bios");
  const auto& bios = tree.at(b.biosPath);
  const auto* settings = member(bios, "@Redfish.Settings");
  if (settings) b.biosSettingsPath = tree.linkOf(*settings, "SettingsObject");
  b.resetBiosTarget = stringAt(actionOf(bios, "#Bios.ResetBios"), "target");
}

void readServices(const TreeReader& tree, const nlohmann::json& root, VendorBehaviour& b) {
  const auto& update = tree.at(linkAt(root, "UpdateService"));
  b.simpleUpdateTarget = stringAt(actionOf(update, "#UpdateService.SimpleUpdate"), "target");
  b.multipartPushUri = stringAt(update, "MultipartHttpPushUri");
  b.httpPushUri = stringAt(update, "HttpPushUri");
  b.firmwareInventory = tree.linkOf(update, "FirmwareInventory");
  const auto& sessions = tree.at(linkAt(root, "SessionService"));
  b.sessionsPath = tree.linkOf(sessions, "Sessions");
  const auto* timeout = member(sessions, "SessionTimeout");
  if (timeout && timeout->is_number() && timeout->get<double>() > 0) {
    b.sessionTimeoutSeconds = timeout->get<double>();
  }
  b.tasksPath =
      tree.linkOf(tree.at(linkAt(root, "Tasks")), "Tasks");  // root "Tasks" is the service
  b.accountsPath = tree.linkOf(tree.at(linkAt(root, "AccountService")), "Accounts");
  b.subscriptionsPath = tree.linkOf(tree.at(linkAt(root, "EventService")), "Subscriptions");
  const auto* features = member(root, "ProtocolFeaturesSupported");
  const auto* expand = features ? member(*features, "ExpandQuery") : nullptr;
  b.expandSupported = expand && member(*expand, "Levels") && *member(*expand, "Levels") == true;
}

void readManager(const TreeReader& tree, const nlohmann::json& root, VendorBehaviour& b) {
  if (b.managerPath.empty()) {
    auto managers = memberLinks(tree.at(linkAt(root, "Managers")));
    if (!managers.empty()) b.managerPath = tree.canonical(managers.front());
  }
  const auto& manager = tree.at(b.managerPath);
  b.managerResetToDefaultsTarget =
      stringAt(actionOf(manager, "#Manager.ResetToDefaults"), "target");
  for (const auto& link : memberLinks(tree.at(linkAt(manager, "EthernetInterfaces")))) {
    auto mac = stringAt(tree.at(link), "MACAddress");
    if (!mac.empty() && mac != "00:00:00:00:00:00") {
      b.bmcEthernetInterface = tree.canonical(link);
      break;
    }
  }
}

bool mentionsGpu(const std::string& path, const nlohmann::json& body) {
  auto segment = lower(path.substr(path.rfind('/') + 1));
  auto text = lower(stringAt(body, "Name") + " " + stringAt(body, "Model") + " " +
                    stringAt(body, "Description"));
  return segment.find("gpu") != std::string::npos || text.find("gpu") != std::string::npos ||
         text.find("h100") != std::string::npos || text.find("a100") != std::string::npos;
}

void findGpus(const Profile& profile, VendorBehaviour& b) {
  std::vector<std::string> gpuDevices;
  for (const auto& [path, body] : profile.resources->items()) {
    if (stringAt(body, "ProcessorType") == "GPU") b.gpus.push_back(path);
    bool isDevice =
        path.find("/PCIeDevices/") != std::string::npos && member(body, "PCIeInterface");
    if (isDevice && mentionsGpu(path, body)) b.gpuPcieDevices.push_back(path);
    if (isDevice && mentionsGpu(path, body) && !stringAt(body, "SerialNumber").empty()) {
      gpuDevices.push_back(path);
    }
  }
  if (b.gpus.empty()) b.gpus = gpuDevices;  // Supermicro: GPUs only as PCIe devices
}

// Power supplies as resources (PowerSubsystem/PowerSupplies/<id>), else the first legacy Power
// resource that lists them in its array.
void findPowerSupplies(const Profile& profile, VendorBehaviour& b) {
  for (const auto& [path, body] : profile.resources->items()) {
    const std::string collection = "/PowerSupplies";
    auto parent = path.substr(0, path.rfind('/'));
    if (parent.size() > collection.size() &&
        parent.compare(parent.size() - collection.size(), collection.size(), collection) == 0) {
      b.powerSupplies.push_back(path);
    }
    const auto* list = member(body, "PowerSupplies");
    if (b.legacyPowerPath.empty() && list && list->is_array() && !list->empty()) {
      b.legacyPowerPath = path;
    }
  }
}

// Drives with Drive.SecureErase, the BIOS registry file and Dell's jobs collection.
void scanTree(const Profile& profile, VendorBehaviour& b) {
  findGpus(profile, b);
  findPowerSupplies(profile, b);
  for (const auto& host : b.hostSystems) {
    const auto* system = profile.find(host);
    if (!system) continue;
    const auto* nics = profile.find(profile.canonicalPath(linkAt(*system, "EthernetInterfaces")));
    for (const auto& link : nics ? memberLinks(*nics) : std::vector<std::string>{}) {
      auto path = profile.canonicalPath(link);
      if (!path.empty()) b.hostEthernetInterfaces.push_back(path);
    }
  }
  for (const auto& [path, body] : profile.resources->items()) {
    auto target = stringAt(actionOf(body, "#Drive.SecureErase"), "target");
    if (!target.empty()) b.secureErase[target] = path;
    if (member(body, "RegistryEntries")) b.biosRegistryPath = path;
    if (lower(path).ends_with("/oem/dell/jobs")) b.dellJobsPath = path;
  }
}

bool hasToken(const std::string& text, std::string_view word) {
  std::string token;
  for (char c : text + " ") {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      token += c;
    } else {
      if (token == word) return true;
      token.clear();
    }
  }
  return false;
}

// Where a flashed version shows, from the member's Id and Name: HGX baseboard parts (GPU,
// NVSwitch, HGX_*) after an AC/aux power cycle; BIOS/UEFI after a host boot; the BMC's own
// firmware (BMC, iDRAC, iLO) after the BMC restarts; everything else at once.
FirmwareApply classifyFirmware(bool hgx, const std::string& id, const std::string& name) {
  auto text = lower(id + " " + name);
  auto has = [&text](std::string_view word) { return text.find(word) != std::string::npos; };
  if (hgx && (lower(id).starts_with("hgx_") || has("gpu") || has("nvswitch"))) {
    return FirmwareApply::kPowerCycle;
  }
  if (has("bios") || has("uefi")) return FirmwareApply::kHostReset;
  if (has("bmc") || has("idrac") || hasToken(text, "ilo")) return FirmwareApply::kBmcRestart;
  return FirmwareApply::kImmediate;
}

void classifyFirmware(const TreeReader& tree, VendorBehaviour& b) {
  std::vector<std::pair<std::string, const nlohmann::json*>> members;
  bool hgx = false;
  for (const auto& link : memberLinks(tree.at(b.firmwareInventory))) {
    const auto& body = tree.at(link);
    members.emplace_back(tree.canonical(link), &body);
    hgx = hgx || lower(stringAt(body, "Id")).starts_with("hgx_");
  }
  for (const auto& [path, body] : members) {
    auto apply = classifyFirmware(hgx, stringAt(*body, "Id"), stringAt(*body, "Name"));
    if (!path.empty() && apply != FirmwareApply::kImmediate) b.firmwareApply[path] = apply;
  }
  if (hgx && !b.mainChassis.empty() && b.chassisResetTypes.count(b.mainChassis) == 0) {
    b.addedChassisReset = b.mainChassis;
    b.chassisResets[b.mainChassis + "/Actions/Chassis.Reset"] = b.mainChassis;
    b.chassisResetTypes[b.mainChassis] = {"On", "ForceOff"};
  }
}

void readChassisResets(const TreeReader& tree, const Profile& profile, VendorBehaviour& b) {
  for (const auto& [path, body] : profile.resources->items()) {
    const auto& reset = actionOf(body, "#Chassis.Reset");
    auto target = stringAt(reset, "target");
    if (target.empty() || !path.starts_with("/redfish/v1/Chassis/")) continue;
    b.chassisResets[target] = path;
    auto types = actionValues(tree, reset, "ResetType");
    b.chassisResetTypes[path] = types.empty() ? std::vector<std::string>{"On", "ForceOff"} : types;
  }
}

// The per-vendor table: limits and quirks the recording cannot show.
void applyVendorTable(VendorBehaviour& b) {
  switch (b.vendor) {
    case Vendor::kDell:  // iDRAC9: 8 Redfish sessions, RAC0218 as a 400
      b.sessionLimit = 8;
      b.sessionLimitStatus = 400;
      b.redundantPowerConflict = true;
      b.powerOnSeconds = 90;
      break;
    case Vendor::kHpe:  // iLO 5 reports SessionTimeout in minutes
      b.caseInsensitivePaths = true;
      b.spurious401Rate = 0.02;
      b.sessionLimit = 14;
      b.sessionLimitStatus = 503;
      b.sessionTimeoutSeconds *= 60;
      b.messagePrefix = "Base.1.4.";
      b.powerOnSeconds = 120;
      break;
    case Vendor::kLenovo:
      b.sessionLimit = 16;
      b.sessionLimitStatus = 400;
      b.powerOnSeconds = 100;
      break;
    case Vendor::kSupermicro:
      b.sessionLimit = 4;
      b.sessionLimitStatus = 503;
      b.bootOverrideNeedsUefiMode = true;
      b.messagePrefix = "Base.1.10.";
      b.powerOnSeconds = 60;
      break;
    case Vendor::kAmi:
      b.sessionLimit = 8;
      b.sessionLimitStatus = 503;
      b.requireIfMatch = true;
      b.powerOnSeconds = 120;
      b.firmwareTaskSeconds = 300;
      break;
    case Vendor::kGeneric:
      break;
  }
}

}  // namespace

VendorBehaviour deriveBehaviour(const Profile& profile) {
  TreeReader tree(profile);
  const auto& root = tree.at("/redfish/v1");
  VendorBehaviour b;
  b.vendor = detectVendor(root);
  readSystems(tree, root, b);
  readServices(tree, root, b);
  readManager(tree, root, b);
  scanTree(profile, b);
  readChassisResets(tree, profile, b);
  classifyFirmware(tree, b);
  applyVendorTable(b);
  return b;
}

}  // namespace sim::model

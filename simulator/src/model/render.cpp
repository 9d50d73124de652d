// The live view of a resource: the recorded body, personalised, with live state overlaid, plus
// an ETag over the result (so it changes exactly when what a client sees changes).
#include <algorithm>
#include <cstdio>

#include "model/handlers.hpp"
#include "model/json_util.hpp"

namespace sim::model {
namespace {

void overlayBios(const ModelState& s, const std::string& path, nlohmann::json& body) {
  const auto& b = s.behaviour();
  if (path == b.biosPath) {
    if (!body.contains("Attributes") || !body["Attributes"].is_object()) return;
    body["Attributes"].update(s.biosApplied);
  } else if (path == b.biosSettingsPath) {
    auto& attributes = body["Attributes"];
    if (!attributes.is_object()) attributes = nlohmann::json::object();
    if (!attributes.empty()) attributes.update(s.biosApplied);  // a full copy of the settings
    attributes.update(s.biosPending);
  }
}

void overlayFirmware(const ModelState& s, const std::string& path, nlohmann::json& body) {
  auto it = s.firmware.find(path);
  if (it != s.firmware.end() && !it->second.awaiting) body["Version"] = it->second.version;
}

// Supermicro HGX: the main chassis gets the Chassis.Reset (ForceOff, On) an AC cycle needs.
void overlayChassisReset(const ModelState& s, const std::string& path, nlohmann::json& body) {
  const auto& b = s.behaviour();
  if (b.addedChassisReset.empty() || path != b.addedChassisReset || !body.is_object()) return;
  auto& actions = body["Actions"];
  if (!actions.is_object()) actions = nlohmann::json::object();
  actions["#Chassis.Reset"] = {{"target", path + "/Actions/Chassis.Reset"},
                               {"ResetType@Redfish.AllowableValues", b.chassisResetTypes.at(path)}};
}

void overlaySystem(const ModelState& s, const std::string& path, nlohmann::json& body) {
  const auto& b = s.behaviour();
  bool host = contains(b.hostSystems, path);
  if (host || contains(b.hostDependentPaths, path)) body["PowerState"] = powerState(s);
  auto it = s.boot.find(path);
  if (!host || it == s.boot.end() || !body["Boot"].is_object()) return;
  auto& boot = body["Boot"];
  boot["BootSourceOverrideTarget"] = it->second.target;
  boot["BootSourceOverrideEnabled"] = it->second.enabled;
  if (!it->second.mode.empty()) boot["BootSourceOverrideMode"] = it->second.mode;
  if (!it->second.httpBootUri.empty()) boot["HttpBootUri"] = it->second.httpBootUri;
}

// The n-th (from 1) path of `paths` is `path`.
bool isNth(const std::vector<std::string>& paths, int n, const std::string& path) {
  return n >= 1 && static_cast<std::size_t>(n) <= paths.size() && paths[n - 1] == path;
}

void setHealth(nlohmann::json& resource, const ComponentHealthFault& fault) {
  auto& status = resource["Status"];
  if (!status.is_object()) status = nlohmann::json::object();
  status["Health"] = fault.health;
  status["HealthRollup"] = fault.health;
  status["Conditions"] =
      nlohmann::json::array({{{"MessageId", "ResourceEvent.1.0.ResourceErrorsDetected"},
                              {"Message", fault.message},
                              {"Severity", fault.health}}});
}

// What the BMC reports of a GPU's or a power supply's health (gpu_health, gpu_off_bus,
// psu_health faults).
void overlayComponentHealth(const ModelState& s, const std::string& path, nlohmann::json& body) {
  const auto& b = s.behaviour();
  const auto& f = s.faults;
  if (f.gpuHealth && isNth(b.gpus, f.gpuHealth->index, path)) setHealth(body, *f.gpuHealth);
  if (f.gpuOffBus && isNth(b.gpus, *f.gpuOffBus, path)) {
    auto processor_link = body.find("SystemInterface");
    if (processor_link != body.end() && processor_link->is_object()) {
      auto pcie = processor_link->find("PCIe");
      if (pcie != processor_link->end() && pcie->is_object()) (*pcie)["LanesInUse"] = 0;
    }
    auto device_link = body.find("PCIeInterface");
    if (device_link != body.end() && device_link->is_object()) (*device_link)["LanesInUse"] = 0;
  }
  if (!f.psuHealth) return;
  if (isNth(b.powerSupplies, f.psuHealth->index, path)) setHealth(body, *f.psuHealth);
  if (b.powerSupplies.empty() && path == b.legacyPowerPath) {
    auto& list = body["PowerSupplies"];
    if (list.is_array() && static_cast<std::size_t>(f.psuHealth->index) <= list.size()) {
      setHealth(list[f.psuHealth->index - 1], *f.psuHealth);
    }
  }
}

void overlayFaults(const ModelState& s, const std::string& path, nlohmann::json& body) {
  const auto& b = s.behaviour();
  if (path == s.loginAccount) body["UserName"] = s.credentials.username;
  if (s.faults.secureEraseUnsupported && body.contains("Actions") && body["Actions"].is_object()) {
    body["Actions"].erase("#Drive.SecureErase");
  }
  if (path == b.mainChassis && s.faults.chassisSerial)
    body["SerialNumber"] = *s.faults.chassisSerial;
  if (s.faults.pcieDownTrained && contains(b.gpuPcieDevices, path)) {
    auto& link = body["PCIeInterface"];
    if (link.is_object()) {
      link["LanesInUse"] = 8;
      link["MaxLanes"] = 16;
    }
  }
}

// Collections whose members change at run time: recorded members plus live ones.
void overlayCollection(ModelState& s, const std::string& path, nlohmann::json& body) {
  const auto& b = s.behaviour();
  std::vector<std::string> extra;
  if (path == b.sessionsPath) {
    body["Members"] = nlohmann::json::array();  // recorded sessions are not ours
    for (const auto& [id, session] : s.sessions) extra.push_back(path + "/" + id);
  } else if (path == b.tasksPath) {
    for (const auto& task : s.tasks) extra.push_back(path + "/" + task.id);
  } else if (path == b.subscriptionsPath) {
    for (const auto& [member, sub] : s.subscriptions) extra.push_back(member);
  } else if (path == b.accountsPath && !s.deletedAccounts.empty()) {
    auto& recorded = body["Members"];
    if (recorded.is_array()) {
      auto deleted = [&](const nlohmann::json& member) {
        return member.is_object() && member.contains("@odata.id") &&
               member["@odata.id"].is_string() &&
               s.deletedAccounts.contains(
                   s.profile->canonicalPath(member["@odata.id"].get<std::string>()));
      };
      recorded.erase(std::remove_if(recorded.begin(), recorded.end(), deleted), recorded.end());
    }
  } else if (path == b.dellJobsPath) {
    for (const auto& job : s.jobs) extra.push_back(path + "/" + job);
    for (const auto& job : firmwareJobIds(s)) extra.push_back(path + "/" + job);
  } else {
    return;
  }
  auto& members = body["Members"];
  if (!members.is_array()) members = nlohmann::json::array();
  for (const auto& link : extra) members.push_back({{"@odata.id", link}});
  body["Members@odata.count"] = members.size();
}

}  // namespace

std::string etagOf(const nlohmann::json& body) {
  auto copy = body;
  if (copy.is_object()) copy.erase("@odata.etag");
  std::uint64_t hash = 0xcbf29ce484222325ULL;
  for (unsigned char c : copy.dump()) {
    hash ^= c;
    hash *= 0x100000001b3ULL;
  }
  char text[24];
  std::snprintf(text, sizeof text, "\"%016llx\"", static_cast<unsigned long long>(hash));
  return text;
}

std::string freshId(ModelState& s, const std::string& collection) {
  for (;;) {
    auto id = std::to_string(s.nextId++);
    if (!s.profile->find(collection + "/" + id)) return id;
  }
}

std::optional<nlohmann::json> render(ModelState& s, const std::string& path, bool withEtag) {
  std::optional<nlohmann::json> body;
  if (s.deletedAccounts.contains(path)) return std::nullopt;
  if (const auto* recorded = s.profile->find(path)) {
    body = *recorded;
    s.personaliser.apply(*body);
  } else {
    body = renderDynamic(s, path);
    if (!body) body = renderTask(s, path);
    if (!body) body = renderFirmwareJob(s, path);
    if (!body) return std::nullopt;
  }
  overlaySystem(s, path, *body);
  overlayBios(s, path, *body);
  overlayFirmware(s, path, *body);
  overlayChassisReset(s, path, *body);
  overlayFaults(s, path, *body);
  if (body->is_object()) overlayComponentHealth(s, path, *body);
  overlayCollection(s, path, *body);
  if (withEtag && body->is_object()) (*body)["@odata.etag"] = etagOf(*body);
  return body;
}

namespace {

// $expand=.($levels=1) / * / ~ : members of a collection inline, one level (what every recorded
// vendor supports); other queries are ignored.
void expandMembers(ModelState& s, nlohmann::json& body) {
  auto* members = body.is_object() && body.contains("Members") ? &body["Members"] : nullptr;
  if (!members || !members->is_array()) return;
  for (auto& item : *members) {
    auto link = stringAt(item, "@odata.id");
    auto canonical = s.profile->canonicalPath(link);
    auto expanded = render(s, canonical.empty() ? trimSlash(link) : canonical);
    if (expanded) item = std::move(*expanded);
  }
}

}  // namespace

HttpResponse serveGet(ModelState& s, const std::string& path, const HttpRequest& request) {
  auto body = render(s, path);
  if (!body) {
    return redfishError(s, 404, "ResourceMissingAtURI",
                        "The resource at the URI " + path + " was not found.", {path});
  }
  auto etag = stringAt(*body, "@odata.etag");
  if (s.behaviour().expandSupported && request.query.find("$expand") != std::string::npos) {
    expandMembers(s, *body);
  }
  bool runningMonitor = path.ends_with("/Monitor") && stringAt(*body, "TaskState") == "Running";
  auto response = HttpResponse::json(runningMonitor ? 202 : 200, body->dump());
  if (!etag.empty()) response.headers.emplace_back("ETag", etag);
  response.headers.emplace_back("OData-Version", "4.0");
  return response;
}

HttpResponse redfishError(const ModelState& s, int status, std::string_view messageId,
                          std::string message, std::vector<std::string> args,
                          std::string relatedProperty) {
  auto id = s.behaviour().messagePrefix + std::string(messageId);
  nlohmann::json info = {{"@odata.type", "#Message.v1_1_1.Message"},
                         {"MessageId", id},
                         {"Message", message},
                         {"MessageArgs", args},
                         {"Severity", status >= 500 ? "Critical" : "Warning"},
                         {"Resolution", "Correct the request and resubmit it."}};
  if (!relatedProperty.empty()) info["RelatedProperties"] = {relatedProperty};
  nlohmann::json body = {{"error",
                          {{"code", id},
                           {"message", status >= 500 ? "A general error has occurred." : message},
                           {"@Message.ExtendedInfo", {info}}}}};
  return HttpResponse::json(status, body.dump());
}

HttpResponse noContent() {
  HttpResponse response;
  response.status = 204;
  return response;
}

std::optional<nlohmann::json> parseBody(const HttpRequest& request) {
  if (request.body.empty()) return nlohmann::json::object();
  auto parsed = nlohmann::json::parse(request.body, nullptr, false);
  if (parsed.is_discarded()) return std::nullopt;
  return parsed;
}

}  // namespace sim::model

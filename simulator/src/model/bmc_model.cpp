// BmcModel: locking, request dispatch, identity and snapshot. The behaviour itself lives in the
// handler files (handlers.hpp); the boot observer is called after the lock is released.
#include "simulator/bmc_model.hpp"

#include "model/handlers.hpp"
#include "model/json_util.hpp"

namespace sim {

struct BmcModel::State : model::ModelState {
  using ModelState::ModelState;
};

namespace {

using model::ModelState;

using model::samePath;

bool underAny(const std::string& path, const std::vector<std::string>& prefixes) {
  for (const auto& prefix : prefixes) {
    if (path == prefix || path.starts_with(prefix + "/")) return true;
  }
  return false;
}

HttpResponse handlePost(ModelState& s, const std::string& path, const HttpRequest& request) {
  const auto& b = s.behaviour();
  if (samePath(b, path, b.multipartPushUri)) return model::pushUpdate(s, request, true);
  if (samePath(b, path, b.httpPushUri)) return model::pushUpdate(s, request, false);
  auto body = model::parseBody(request);
  if (!body) return model::redfishError(s, 400, "MalformedJSON", "The request body is not JSON.");
  if (samePath(b, path, b.subscriptionsPath)) return model::createSubscription(s, request);
  if (samePath(b, path, b.resetTarget)) return model::resetSystem(s, *body);
  if (samePath(b, path, b.resetBiosTarget)) return model::resetBios(s);
  if (samePath(b, path, b.simpleUpdateTarget)) return model::simpleUpdate(s, *body);
  if (samePath(b, path, b.managerResetToDefaultsTarget)) return model::resetManagerToDefaults(s);
  if (samePath(b, path, b.dellJobsPath)) return model::createDellJob(s, *body);
  for (const auto& [target, chassis] : b.chassisResets) {
    if (samePath(b, path, target)) return model::resetChassis(s, chassis, *body);
  }
  for (const auto& [target, drive] : b.secureErase) {
    if (!samePath(b, path, target)) continue;
    if (s.faults.secureEraseUnsupported) {
      return model::redfishError(s, 400, "ActionNotSupported", "SecureErase is not supported.");
    }
    return model::secureErase(s, drive);
  }
  if (s.profile->find(s.profile->canonicalPath(path))) {
    return model::redfishError(s, 405, "ActionNotSupported", "POST is not allowed here.");
  }
  return model::redfishError(s, 404, "ResourceMissingAtURI",
                             "The resource at the URI " + path + " was not found.", {path});
}

HttpResponse handlePatch(ModelState& s, const std::string& path, const HttpRequest& request) {
  const auto& b = s.behaviour();
  auto current = model::render(s, path);
  if (!current) {
    return model::redfishError(s, 404, "ResourceMissingAtURI",
                               "The resource at the URI " + path + " was not found.", {path});
  }
  auto ifMatch = std::string(request.header("if-match"));
  if (ifMatch.empty() && b.requireIfMatch) {
    return model::redfishError(s, 428, "PreconditionRequired",
                               "A precondition header (If-Match) is required for PATCH.");
  }
  if (!ifMatch.empty() && ifMatch != "*" && ifMatch != model::etagOf(*current)) {
    return model::redfishError(s, 412, "PreconditionFailed",
                               "The ETag supplied did not match the ETag of the resource.");
  }
  auto body = model::parseBody(request);
  if (!body || !body->is_object()) {
    return model::redfishError(s, 400, "MalformedJSON", "The request body is not a JSON object.");
  }
  if (model::contains(b.hostSystems, path)) return model::patchSystem(s, path, *body);
  if (path == b.biosSettingsPath) return model::patchBiosSettings(s, *body);
  if (!b.accountsPath.empty() && path.starts_with(b.accountsPath + "/")) {
    return model::patchAccount(s, path, *body);
  }
  return model::redfishError(s, 405, "ActionNotSupported",
                             "PATCH is not allowed on " + path + "; use its settings object.");
}

HttpResponse route(ModelState& s, const HttpRequest& request, const std::string& path) {
  const auto& b = s.behaviour();
  if (request.method == "GET" || request.method == "HEAD") return model::serveGet(s, path, request);
  if (request.method == "POST") {
    if (samePath(b, path, b.sessionsPath)) return model::createSession(s, request);
    return handlePost(s, path, request);
  }
  if (request.method == "PATCH") return handlePatch(s, path, request);
  if (request.method == "DELETE") {
    if (auto deleted = model::deleteDynamic(s, path)) return *deleted;
    return model::redfishError(s, 405, "ActionNotSupported", "DELETE is not allowed here.");
  }
  return model::redfishError(s, 405, "ActionNotSupported",
                             "The method " + request.method + " is not supported.");
}

HttpResponse dispatch(ModelState& s, const HttpRequest& request) {
  model::advancePower(s);
  model::advanceTasks(s);
  model::expireSessions(s);
  const auto& b = s.behaviour();
  auto trimmed = model::trimSlash(request.path);
  if (trimmed == "/redfish") return HttpResponse::json(200, R"({"v1":"/redfish/v1/"})");
  auto canonical = s.profile->canonicalPath(trimmed);
  auto path = canonical.empty() ? trimmed : canonical;
  bool open = (request.method == "GET" && path == "/redfish/v1") ||
              (request.method == "POST" && samePath(b, path, b.sessionsPath));
  if (!open && !model::authenticated(s, request)) {
    return model::redfishError(s, 401, "NoValidSession",
                               "There is no valid session established with the implementation.");
  }
  if (!open && b.spurious401Rate > 0 && s.uniform() < b.spurious401Rate) {
    return model::redfishError(s, 401, "NoValidSession",
                               "There is no valid session established with the implementation.");
  }
  if (underAny(path, b.hostDependentPaths) && !model::hostOn(s)) {
    auto response = model::redfishError(s, 503, "ServiceTemporarilyUnavailable",
                                        "The service is temporarily unavailable.", {"30"});
    response.headers.emplace_back("Retry-After", "30");
    return response;
  }
  auto response = route(s, request, path);
  model::recordRequestEffect(s, request, path, response);
  return response;
}

std::string renderedString(ModelState& s, const std::string& path, const char* key) {
  auto body = path.empty() ? std::nullopt : model::render(s, path, false);
  return body ? model::stringAt(*body, key) : std::string{};
}

}  // namespace

BmcModel::BmcModel(std::shared_ptr<const Profile> profile, std::string id, std::uint64_t seed,
                   BmcCredentials credentials, const SimClock& clock, bool personalise)
    : state_(std::make_unique<State>(std::move(profile), std::move(id), seed,
                                     std::move(credentials), clock, personalise)) {
  state_->loginAccount = model::findLoginAccount(*state_);
}

BmcModel::~BmcModel() = default;

HttpResponse BmcModel::handle(const HttpRequest& request) {
  std::vector<BootEvent> events;
  std::function<void(const BootEvent&)> observer;
  std::optional<model::UpdateRequest> download;
  ImageFetcher fetcher;
  HttpResponse response;
  {
    std::lock_guard lock(state_->mutex);
    response = dispatch(*state_, request);
    events.swap(state_->pendingBootEvents);
    observer = state_->bootObserver;
    download.swap(state_->pendingDownload);
    fetcher = fetcher_;
  }
  if (observer) {
    for (const auto& event : events) observer(event);
  }
  if (download && fetcher) {
    // Like a BMC that pulls the image before it answers SimpleUpdate: the fetcher downloads it
    // off the engine's loop, and the answer (202 with the task, or 400) follows.
    response = HttpResponse{};
    response.later = [state = state_.get(), fetcher,
                      update = std::move(*download)](AnswerSink sink) {
      fetcher(update.image, [state, update, sink](ImageDownload image) {
        HttpResponse answer;
        {
          std::lock_guard lock(state->mutex);
          answer = model::startUpdate(*state, update, image);
        }
        sink(std::move(answer));
      });
    };
  }
  return response;
}

BmcIdentity BmcModel::identity() const {
  std::lock_guard lock(state_->mutex);
  auto& s = *state_;
  const auto& b = s.behaviour();
  BmcIdentity id;
  id.id = s.id;
  id.profile = s.profile->name;
  auto host = b.hostSystems.empty() ? std::string{} : b.hostSystems.front();
  id.manufacturer = renderedString(s, host, "Manufacturer");
  id.model = renderedString(s, host, "Model");
  id.systemSerial = renderedString(s, host, "SerialNumber");
  id.uuid = renderedString(s, host, "UUID");
  id.chassisSerial = renderedString(s, b.mainChassis, "SerialNumber");
  id.bmcMac = renderedString(s, b.bmcEthernetInterface, "MACAddress");
  for (const auto& gpu : b.gpus) {
    id.gpuSerials.push_back(renderedString(s, gpu, "SerialNumber"));
    auto uuid = renderedString(s, gpu, "UUID");
    if (!uuid.empty()) id.gpuUuids.push_back(uuid);
    if (id.gpuModel.empty()) id.gpuModel = renderedString(s, gpu, "Model");
  }
  for (const auto& nic : b.hostEthernetInterfaces) {
    auto mac = renderedString(s, nic, "MACAddress");
    if (!mac.empty() && mac != "00:00:00:00:00:00") id.hostMacs.push_back(mac);
  }
  return id;
}

bool BmcModel::reachable() const {
  std::lock_guard lock(state_->mutex);
  model::advanceTasks(*state_);  // a task that just ended may have restarted the BMC
  return !state_->vanishedUntil || state_->now() >= *state_->vanishedUntil;
}

void BmcModel::setImageFetcher(ImageFetcher fetcher) {
  std::lock_guard lock(state_->mutex);
  fetcher_ = std::move(fetcher);
  state_->downloadsImages = static_cast<bool>(fetcher_);
}

std::vector<FirmwareVersion> BmcModel::firmwareVersions() const {
  std::lock_guard lock(state_->mutex);
  auto& s = *state_;
  model::advanceTasks(s);
  std::vector<FirmwareVersion> out;
  const auto* collection = s.profile->find(s.behaviour().firmwareInventory);
  for (const auto& link :
       collection ? model::memberLinks(*collection) : std::vector<std::string>{}) {
    auto path = s.profile->canonicalPath(link);
    const auto* body = path.empty() ? nullptr : s.profile->find(path);
    if (body == nullptr) continue;
    FirmwareVersion entry{path, model::stringAt(*body, "Id"), model::stringAt(*body, "Name"),
                          model::stringAt(*body, "Version")};
    auto change = s.firmware.find(path);
    if (change != s.firmware.end() && !change->second.awaiting)
      entry.version = change->second.version;
    out.push_back(std::move(entry));
  }
  return out;
}

void BmcModel::setFaults(const BehaviourFaults& faults) {
  std::lock_guard lock(state_->mutex);
  state_->faults = faults;
}

void BmcModel::setBootObserver(std::function<void(const BootEvent&)> observer) {
  std::lock_guard lock(state_->mutex);
  state_->bootObserver = std::move(observer);
}

nlohmann::json BmcModel::snapshot() const {
  std::lock_guard lock(state_->mutex);
  auto& s = *state_;
  model::advancePower(s);
  model::advanceTasks(s);
  model::expireSessions(s);
  nlohmann::json boot = nlohmann::json::object();
  for (const auto& [system, o] : s.boot) {
    boot[system] = {{"target", o.target},
                    {"enabled", o.enabled},
                    {"mode", o.mode},
                    {"httpBootUri", o.httpBootUri}};
  }
  nlohmann::json firmware = nlohmann::json::object();
  for (const auto& [path, change] : s.firmware) {
    std::string awaiting = "nothing";
    if (change.awaiting == FirmwareApply::kHostReset) awaiting = "host_reset";
    if (change.awaiting == FirmwareApply::kPowerCycle) awaiting = "power_cycle";
    firmware[path] = {{"version", change.version},
                      {"awaiting", awaiting},
                      {"awaitingReset", change.awaiting.has_value()}};
  }
  nlohmann::json subscriptions = nlohmann::json::array();
  for (const auto& [path, body] : s.subscriptions) subscriptions.push_back(path);
  // Firmware updates this BMC accepted, per way they came (each is a task in "tasks").
  nlohmann::json updates = {{"SimpleUpdate", 0}, {"MultipartHttpPushUri", 0}, {"HttpPushUri", 0}};
  for (const auto& task : s.tasks) {
    if (task.kind == model::TaskKind::kFirmware && updates.contains(task.method)) {
      updates[task.method] = updates[task.method].get<int>() + 1;
    }
  }
  return {{"id", s.id},
          {"profile", s.profile->name},
          {"powerState", model::powerState(s)},
          {"boot", boot},
          {"bios",
           {{"pending", s.biosPending},
            {"applied", s.biosApplied},
            {"resetPending", s.biosResetPending}}},
          {"firmware", firmware},
          {"tasks", model::taskSummaries(s)},
          {"firmwareUpdates", updates},
          {"sideEffects", model::sideEffectsJson(s)},
          {"sessions", s.sessions.size()},
          {"subscriptions", subscriptions},
          {"chassisPower", s.chassisOff ? "Off" : "On"},
          {"reachable", !s.vanishedUntil || s.now() >= *s.vanishedUntil}};
}

}  // namespace sim

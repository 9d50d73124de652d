// The model's request handlers, one file per concern; all run with the state's mutex held.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/json_util.hpp"
#include "model/model_state.hpp"
#include "simulator/http_types.hpp"

namespace sim::model {

// `path` (canonical) is the vendor's `target` (an action or collection path; empty: never).
inline bool samePath(const VendorBehaviour& b, const std::string& path, const std::string& target) {
  if (target.empty()) return false;
  auto t = trimSlash(target);
  return path == t || (b.caseInsensitivePaths && lower(path) == lower(t));
}

// A Redfish error in the vendor's style: one @Message.ExtendedInfo entry with MessageArgs and,
// when given, the offending property in RelatedProperties.
HttpResponse redfishError(const ModelState& state, int status, std::string_view messageId,
                          std::string message, std::vector<std::string> args = {},
                          std::string relatedProperty = {});
HttpResponse noContent();
std::optional<nlohmann::json> parseBody(const HttpRequest& request);

// render.cpp: the live view of a resource and its ETag.
std::optional<nlohmann::json> render(ModelState& state, const std::string& canonical,
                                     bool withEtag = true);
// An id for a new member of `collection` that no recorded member uses.
std::string freshId(ModelState& state, const std::string& collection);
std::string etagOf(const nlohmann::json& body);
HttpResponse serveGet(ModelState& state, const std::string& canonical, const HttpRequest& request);

// sessions_accounts.cpp
std::string findLoginAccount(ModelState& state);
bool authenticated(ModelState& state, const HttpRequest& request);
void expireSessions(ModelState& state);
HttpResponse createSession(ModelState& state, const HttpRequest& request);
std::optional<HttpResponse> deleteDynamic(ModelState& state, const std::string& path);
HttpResponse patchAccount(ModelState& state, const std::string& canonical,
                          const nlohmann::json& body);
HttpResponse createSubscription(ModelState& state, const HttpRequest& request);
HttpResponse resetManagerToDefaults(ModelState& state);
std::optional<nlohmann::json> renderDynamic(ModelState& state, const std::string& path);

// power_boot.cpp
void advancePower(ModelState& state);
std::string powerState(const ModelState& state);
bool hostOn(const ModelState& state);
HttpResponse resetSystem(ModelState& state, const nlohmann::json& body);
HttpResponse patchSystem(ModelState& state, const std::string& canonical,
                         const nlohmann::json& body);

// bios.cpp
HttpResponse patchBiosSettings(ModelState& state, const nlohmann::json& body);
HttpResponse resetBios(ModelState& state);
HttpResponse createDellJob(ModelState& state, const nlohmann::json& body);
void applyBiosOnReset(ModelState& state);

// power_boot.cpp: Chassis.Reset on `chassis` (ForceOff then On is the AC/aux power cycle).
HttpResponse resetChassis(ModelState& state, const std::string& chassis,
                          const nlohmann::json& body);

// firmware_update.cpp
// Dotted-numeric comparison, part by part (numbers as numbers, other parts as text, missing
// parts as 0): <0, 0, >0.
int compareFirmwareVersions(std::string_view a, std::string_view b);
// With an http(s) ImageURI and an image fetcher: sets state.pendingDownload and returns an empty
// answer (BmcModel answers once the image is fetched, with startUpdate).
HttpResponse simpleUpdate(ModelState& state, const nlohmann::json& body);
HttpResponse pushUpdate(ModelState& state, const HttpRequest& request, bool multipart);
HttpResponse startUpdate(ModelState& state, const UpdateRequest& request,
                         const ImageDownload& image);

// tasks_firmware.cpp
void advanceTasks(ModelState& state);
void applyFirmwareOnReset(ModelState& state);
void applyFirmwareOnPowerCycle(ModelState& state);
std::string installedVersion(const ModelState& state, const std::string& path);
std::string newTaskId(ModelState& state);
HttpResponse acceptTask(ModelState& state, Task task);
HttpResponse secureErase(ModelState& state, const std::string& drive);
std::optional<nlohmann::json> renderTask(const ModelState& state, const std::string& path);
// Dell: the job a firmware task is (Oem/Dell/Jobs/<task id>), and the ids of all of them.
std::optional<nlohmann::json> renderFirmwareJob(const ModelState& state, const std::string& path);
std::vector<std::string> firmwareJobIds(const ModelState& state);
nlohmann::json taskSummaries(const ModelState& state);

// side_effects.cpp: the record of what the BMC accepted, for the chaos harness's verdict.
// What `request` (to canonical `path`) changes, if it is accepted; firmware updates and secure
// erases are recorded by acceptTask instead, with their targets.
std::optional<SideEffect> classifyRequest(const VendorBehaviour& b, const HttpRequest& request,
                                          const std::string& path);
// `at`: when it happened in simulated time, if not now (a task's end, seen later).
void recordSideEffect(ModelState& state, std::string kind, std::string key,
                      std::optional<double> at = std::nullopt);
// Records `request`'s effect when `response` accepted it (2xx).
void recordRequestEffect(ModelState& state, const HttpRequest& request, const std::string& path,
                         const HttpResponse& response);
nlohmann::json sideEffectsJson(const ModelState& state);

}  // namespace sim::model

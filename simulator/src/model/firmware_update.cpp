// Starting a firmware update: SimpleUpdate and the pushes are checked, the version the image
// installs is decided (a downloaded "simulated firmware package", or the old conventions for an
// image nobody serves), a downgrade is refused where the BMC wants ForceUpdate, and the task
// starts (tasks_firmware.cpp runs it).
#include <algorithm>
#include <cctype>
#include <map>

#include "model/handlers.hpp"
#include "model/json_util.hpp"

namespace sim::model {
namespace {

constexpr std::size_t kMaxVersionLength = 128;
constexpr double kFailedDownloadSeconds = 5;     // a task whose image never came ends soon
constexpr double kVanishedAfterUpdate = 60;      // vanish_during_firmware_update: back after
constexpr std::size_t kMaxPackageBytes = 65536;  // a package is a small JSON document

std::vector<std::string> inventory(const ModelState& s) {
  std::vector<std::string> out;
  const auto* collection = s.profile->find(s.behaviour().firmwareInventory);
  for (const auto& link : collection ? memberLinks(*collection) : std::vector<std::string>{}) {
    auto path = s.profile->canonicalPath(link);
    if (!path.empty()) out.push_back(path);
  }
  return out;
}

// Without Targets: the inventory entries named in the image file name, else the first updateable.
std::vector<std::string> defaultTargets(const ModelState& s, const std::string& image) {
  auto slash = image.find_last_of('/');
  auto name = lower(image.substr(slash == std::string::npos ? 0 : slash + 1));
  std::vector<std::string> named;
  std::string firstUpdateable;
  for (const auto& path : inventory(s)) {
    const auto* body = s.profile->find(path);
    auto id = lower(body ? stringAt(*body, "Id") : std::string{});
    if (!name.empty() && id.size() >= 3 && name.find(id) != std::string::npos)
      named.push_back(path);
    const auto* updateable = body ? member(*body, "Updateable") : nullptr;
    if (firstUpdateable.empty() && updateable && *updateable == true) firstUpdateable = path;
  }
  if (named.empty() && !firstUpdateable.empty()) named.push_back(firstUpdateable);
  return named;
}

std::string oemVersion(const nlohmann::json& parameters) {
  const auto* oem = member(parameters, "Oem");
  const auto* ours = oem ? member(*oem, "Simulator") : nullptr;
  return ours ? stringAt(*ours, "Version") : std::string{};
}

bool forceUpdate(const nlohmann::json& parameters) {
  const auto* force = member(parameters, "ForceUpdate");
  return force && force->is_boolean() && force->get<bool>();
}

// The `version` query parameter of an image URI ("...fw.bin?version=1.2.3"), or empty.
std::string queryVersion(const std::string& uri) {
  auto query = uri.find('?');
  if (query == std::string::npos) return {};
  auto rest = uri.substr(query + 1, uri.find('#') == std::string::npos ? std::string::npos
                                                                       : uri.find('#') - query - 1);
  std::size_t at = 0;
  while (at <= rest.size()) {
    auto end = rest.find('&', at);
    auto pair = rest.substr(at, end == std::string::npos ? std::string::npos : end - at);
    if (pair.rfind("version=", 0) == 0) return pair.substr(8);
    if (end == std::string::npos) break;
    at = end + 1;
  }
  return {};
}

// {"version": "24.10.1"} -> "24.10.1"; anything else -> empty.
std::string packageVersion(const std::string& bytes) {
  if (bytes.size() > kMaxPackageBytes) return {};
  auto parsed = nlohmann::json::parse(bytes, nullptr, false);
  auto version = stringAt(parsed, "version");
  bool printable = std::all_of(version.begin(), version.end(), [](char c) {
    return std::isprint(static_cast<unsigned char>(c)) != 0;
  });
  return version.size() <= kMaxVersionLength && printable ? version : std::string{};
}

struct ImageVersion {
  std::string version;  // empty: each target's version bumped (the old convention)
  std::string failure;  // the download failed or is no package: the task fails with this
};

ImageVersion imageVersion(const UpdateRequest& request, const ImageDownload& image) {
  if (!request.image.empty()) {
    if (image.outcome == ImageDownload::Outcome::kFailed) {
      return {
          {},
          "Unable to download the firmware image from " + request.image + ": " + image.error + "."};
    }
    if (image.outcome == ImageDownload::Outcome::kDownloaded) {
      auto version = packageVersion(image.body);
      if (version.empty()) {
        return {{},
                "The firmware image at " + request.image +
                    " is not a simulated firmware package (a JSON object with a "
                    "\"version\" string)."};
      }
      return {version, {}};
    }
  } else if (auto version = packageVersion(request.pushed); !version.empty()) {
    return {version, {}};
  }
  // Nobody serves the image (or a push of other bytes): the conventions of old.
  if (!request.oemVersion.empty()) return {request.oemVersion, {}};
  return {queryVersion(request.image), {}};
}

std::string memberName(const ModelState& s, const std::string& path) {
  const auto* body = s.profile->find(path);
  auto id = body ? stringAt(*body, "Id") : std::string{};
  return id.empty() ? path.substr(path.rfind('/') + 1) : id;
}

// A downgrade the BMC refuses without ForceUpdate (fault downgrade_needs_force).
std::optional<HttpResponse> refusedDowngrade(const ModelState& s, const UpdateRequest& request,
                                             const std::string& version) {
  if (!s.faults.downgradeNeedsForce || request.force || version.empty()) return std::nullopt;
  for (const auto& target : request.targets) {
    auto installed = installedVersion(s, target);
    if (compareFirmwareVersions(version, installed) >= 0) continue;
    return redfishError(s, 400, "ActionParameterValueError",
                        "The firmware image version " + version +
                            " is lower than the installed version " + installed + " of " +
                            memberName(s, target) +
                            ": a downgrade needs the parameter ForceUpdate set to true.",
                        {"ForceUpdate", "UpdateService.SimpleUpdate"}, "#/ForceUpdate");
  }
  return std::nullopt;
}

// A multipart/form-data body split into its parts (name -> content); nullopt when the
// Content-Type is not multipart/form-data with a boundary, or the body is not framed by it.
std::optional<std::map<std::string, std::string>> multipartParts(const HttpRequest& request) {
  auto type = std::string(request.header("content-type"));
  auto at = type.find("boundary=");
  if (lower(type).rfind("multipart/form-data", 0) != 0 || at == std::string::npos) {
    return std::nullopt;
  }
  auto boundary = type.substr(at + 9);
  boundary = boundary.substr(0, boundary.find(';'));
  std::erase(boundary, '"');
  if (boundary.empty()) return std::nullopt;
  const std::string delimiter = "--" + boundary;
  const std::string& body = request.body;
  std::map<std::string, std::string> parts;
  auto pos = body.find(delimiter);
  if (pos == std::string::npos) return std::nullopt;
  while (true) {
    pos += delimiter.size();
    if (body.compare(pos, 2, "--") == 0) return parts;  // the closing delimiter
    if (body.compare(pos, 2, "\r\n") != 0) return std::nullopt;
    pos += 2;
    auto headersEnd = body.find("\r\n\r\n", pos);
    if (headersEnd == std::string::npos) return std::nullopt;
    const std::string headers = body.substr(pos, headersEnd - pos);
    auto contentStart = headersEnd + 4;
    auto next = body.find("\r\n" + delimiter, contentStart);
    if (next == std::string::npos) return std::nullopt;
    // name="..." as its own parameter (not the tail of filename="...").
    const std::string lowered = lower(headers);
    auto named = lowered.find("name=\"");
    while (named != std::string::npos && named > 0 &&
           std::isalnum(static_cast<unsigned char>(lowered[named - 1])) != 0) {
      named = lowered.find("name=\"", named + 1);
    }
    if (named != std::string::npos) {
      auto nameStart = named + 6;
      auto nameEnd = headers.find('"', nameStart);
      if (nameEnd == std::string::npos) return std::nullopt;
      parts[headers.substr(nameStart, nameEnd - nameStart)] =
          body.substr(contentStart, next - contentStart);
    }
    pos = next + 2;
  }
}

HttpResponse badPush(const ModelState& s, std::string_view messageId, std::string message,
                     std::vector<std::string> args, std::string property = {}) {
  return redfishError(s, 400, messageId, std::move(message), std::move(args), std::move(property));
}

// The UpdateParameters part as the DMTF defines it: a JSON object whose Targets is an array of
// strings and whose @Redfish.OperationApplyTime is one the simulator applies (Immediate, or
// OnReset: the simulator applies each component as its vendor does either way).
std::optional<HttpResponse> checkUpdateParameters(const ModelState& s,
                                                  const nlohmann::json& parameters) {
  if (!parameters.is_object()) {
    return badPush(s, "MalformedJSON",
                   "The UpdateParameters part of the multipart request is not a JSON object.",
                   {"UpdateParameters"});
  }
  if (const auto* targets = member(parameters, "Targets")) {
    bool strings = targets->is_array();
    for (const auto& t : strings ? *targets : nlohmann::json::array()) strings &= t.is_string();
    if (!strings) {
      return badPush(s, "PropertyValueTypeError",
                     "The value for the property Targets of UpdateParameters is not an array of "
                     "strings.",
                     {targets->dump(), "Targets"}, "#/Targets");
    }
  }
  if (const auto* force = member(parameters, "ForceUpdate"); force && !force->is_boolean()) {
    return badPush(s, "PropertyValueTypeError",
                   "The value for the property ForceUpdate of UpdateParameters is not a boolean.",
                   {force->dump(), "ForceUpdate"}, "#/ForceUpdate");
  }
  if (const auto* apply = member(parameters, "@Redfish.OperationApplyTime")) {
    const bool known = apply->is_string() && (*apply == "Immediate" || *apply == "OnReset");
    if (!known) {
      return badPush(s, "PropertyValueNotInList",
                     "The value " + apply->dump() +
                         " for the property @Redfish.OperationApplyTime of UpdateParameters is "
                         "not in the list of acceptable values (Immediate, OnReset).",
                     {apply->dump(), "@Redfish.OperationApplyTime"},
                     "#/@Redfish.OperationApplyTime");
    }
  }
  return std::nullopt;
}

std::optional<HttpResponse> readTargets(ModelState& s, const nlohmann::json& parameters,
                                        UpdateRequest& out) {
  const auto* targets = member(parameters, "Targets");
  if (targets && targets->is_array()) {
    for (const auto& target : stringsAt(parameters, "Targets")) {
      auto path = s.profile->canonicalPath(target);
      if (path.empty()) {
        return redfishError(
            s, 400, "ActionParameterValueNotInList",
            "The value '" + target +
                "' for the parameter Targets in the action "
                "UpdateService.SimpleUpdate is not in the list of acceptable values.",
            {target, "Targets", "UpdateService.SimpleUpdate"}, "#/Targets");
      }
      out.targets.push_back(path);
    }
  }
  if (out.targets.empty()) out.targets = defaultTargets(s, out.image);
  out.force = forceUpdate(parameters);
  out.oemVersion = oemVersion(parameters);
  return std::nullopt;
}

bool isHttpUri(const std::string& uri) {
  auto scheme = lower(uri.substr(0, 8));
  return scheme.rfind("http://", 0) == 0 || scheme.rfind("https://", 0) == 0;
}

}  // namespace

int compareFirmwareVersions(std::string_view a, std::string_view b) {
  auto split = [](std::string_view text) {
    std::vector<std::string> parts;
    std::string part;
    for (char c : text) {
      if (std::isalnum(static_cast<unsigned char>(c))) {
        part += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      } else if (!part.empty()) {
        parts.push_back(std::move(part));
        part.clear();
      }
    }
    if (!part.empty()) parts.push_back(std::move(part));
    return parts;
  };
  auto numeric = [](const std::string& p) {
    return !p.empty() &&
           std::all_of(p.begin(), p.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  auto left = split(a), right = split(b);
  for (std::size_t i = 0; i < std::max(left.size(), right.size()); ++i) {
    std::string x = i < left.size() ? left[i] : "0", y = i < right.size() ? right[i] : "0";
    if (numeric(x) && numeric(y)) {
      x.erase(0, std::min(x.find_first_not_of('0'), x.size()));
      y.erase(0, std::min(y.find_first_not_of('0'), y.size()));
      if (x.size() != y.size()) return x.size() < y.size() ? -1 : 1;
    }
    if (x != y) return x < y ? -1 : 1;
  }
  return 0;
}

HttpResponse startUpdate(ModelState& s, const UpdateRequest& request, const ImageDownload& image) {
  auto [version, failure] = imageVersion(request, image);
  if (failure.empty()) {
    if (auto refused = refusedDowngrade(s, request, version)) return *refused;
  }
  Task task;
  task.id = newTaskId(s);
  task.start = s.now();
  task.duration = s.behaviour().firmwareTaskSeconds;
  task.hung = s.faults.hungTasks;
  task.targets = request.targets;
  task.version = version;
  task.failure = failure;
  if (!failure.empty()) {
    task.duration = std::min(task.duration, kFailedDownloadSeconds);
    task.imageUnreachable = image.outcome == ImageDownload::Outcome::kFailed;
  } else if (s.faults.firmwareTaskFails) {
    task.failure =
        "Flashing the firmware image failed: the component did not accept the image "
        "(simulated fault firmware_task_fails).";
  }
  task.keepVersions = s.faults.firmwareVersionUnchanged;
  task.method = request.method;
  if (s.faults.vanishDuringFirmwareUpdate) {
    s.vanishedUntil = task.start + task.duration + kVanishedAfterUpdate;
  }
  return acceptTask(s, std::move(task));
}

HttpResponse simpleUpdate(ModelState& s, const nlohmann::json& body) {
  UpdateRequest request;
  request.image = stringAt(body, "ImageURI");
  if (request.image.empty()) {
    return redfishError(s, 400, "ActionParameterMissing",
                        "The action UpdateService.SimpleUpdate requires the parameter ImageURI to "
                        "be present in the request body.",
                        {"UpdateService.SimpleUpdate", "ImageURI"}, "#/ImageURI");
  }
  if (auto refused = readTargets(s, body, request)) return *refused;
  if (s.downloadsImages && isHttpUri(request.image)) {
    s.pendingDownload = std::move(request);  // BmcModel fetches it and answers later
    return HttpResponse{};
  }
  return startUpdate(s, request, ImageDownload{});
}

HttpResponse pushUpdate(ModelState& s, const HttpRequest& request, bool multipart) {
  if (request.body.empty()) {
    return redfishError(s, 400, "ActionParameterMissing",
                        "The firmware image is missing from the request body.",
                        {"UpdateService", "UpdateFile"});
  }
  UpdateRequest update;
  update.method = multipart ? "MultipartHttpPushUri" : "HttpPushUri";
  if (!multipart) {
    if (auto refused = readTargets(s, nlohmann::json::object(), update)) return *refused;
    update.pushed = request.body;
    return startUpdate(s, update, ImageDownload{});
  }
  auto parts = multipartParts(request);
  if (!parts) {
    return badPush(s, "UnsupportedMediaType",
                   "The request to the MultipartHttpPushUri is not a multipart/form-data body "
                   "framed by its boundary.",
                   {std::string(request.header("content-type"))});
  }
  auto parametersPart = parts->find("UpdateParameters");
  if (parametersPart == parts->end()) {
    return badPush(s, "ActionParameterMissing",
                   "The multipart request requires the part UpdateParameters.",
                   {"UpdateService.MultipartHttpPushUri", "UpdateParameters"});
  }
  auto filePart = parts->find("UpdateFile");
  if (filePart == parts->end() || filePart->second.empty()) {
    return badPush(s, "ActionParameterMissing",
                   "The multipart request requires the part UpdateFile with the image.",
                   {"UpdateService.MultipartHttpPushUri", "UpdateFile"});
  }
  auto parameters = nlohmann::json::parse(parametersPart->second, nullptr, false);
  if (auto refused = checkUpdateParameters(s, parameters)) return *refused;
  if (auto refused = readTargets(s, parameters, update)) return *refused;
  update.pushed = filePart->second;
  return startUpdate(s, update, ImageDownload{});
}

}  // namespace sim::model

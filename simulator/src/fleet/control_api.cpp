#include "simulator/control_api.hpp"

#include <nlohmann/json.hpp>

#include "simulator/fleet.hpp"

namespace sim {
namespace {

using Json = nlohmann::json;

HttpResponse jsonResponse(int status, const Json& body) {
  return HttpResponse::json(status, body.dump());
}

int statusFor(const common::Error& error) {
  switch (error.kind) {
    case common::ErrorKind::kInvalidArgument:
      return 400;
    case common::ErrorKind::kNotFound:
      return 404;
    case common::ErrorKind::kConflict:
      return 409;
    default:
      return 500;
  }
}

HttpResponse errorResponse(const common::Error& error) {
  Json body = {{"code", error.code}, {"message", error.message}};
  if (!error.field.empty()) body["field"] = error.field;
  return jsonResponse(statusFor(error), body);
}

HttpResponse methodNotAllowed() {
  return jsonResponse(405, {{"code", "method_not_allowed"}, {"message", "method not allowed"}});
}

common::Result<Json> parsePatch(const HttpRequest& request) {
  Json patch = Json::parse(request.body, nullptr, false);
  if (patch.is_discarded() || !patch.is_object()) {
    return common::invalidArgument("malformed_json", "the body must be a JSON object");
  }
  return patch;
}

HttpResponse bmcDetail(Fleet& fleet, const std::string& id) {
  auto endpoint = fleet.bmc(id);
  if (!endpoint) return errorResponse(endpoint.error());
  Json body = endpointJson(*endpoint);
  body["faults"] = faultsToJson(fleet.faults(id).valueOr(Faults{}));
  body["snapshot"] = fleet.snapshot(id).valueOr(Json::object());
  return jsonResponse(200, body);
}

HttpResponse putBmcFaults(Fleet& fleet, const std::string& id, const HttpRequest& request) {
  auto patch = parsePatch(request);
  if (!patch) return errorResponse(patch.error());
  auto faults = fleet.patchFaults(id, *patch);
  if (!faults) return errorResponse(faults.error());
  return jsonResponse(200, faultsToJson(*faults));
}

HttpResponse putFleetFaults(Fleet& fleet, const HttpRequest& request) {
  auto patch = parsePatch(request);
  if (!patch) return errorResponse(patch.error());
  auto applied = fleet.patchAllFaults(*patch);
  if (!applied) return errorResponse(applied.error());
  return jsonResponse(200, {{"updated", fleet.size()}});
}

// "/bmcs/{id}" -> id, "/bmcs/{id}/faults" -> id with `faults` set.
bool splitBmcPath(const std::string& path, std::string& id, bool& faults) {
  const std::string prefix = "/bmcs/";
  if (path.rfind(prefix, 0) != 0) return false;
  id = path.substr(prefix.size());
  faults = false;
  const std::string suffix = "/faults";
  if (id.size() > suffix.size() &&
      id.compare(id.size() - suffix.size(), suffix.size(), suffix) == 0) {
    id.resize(id.size() - suffix.size());
    faults = true;
  }
  return !id.empty() && id.find('/') == std::string::npos;
}

}  // namespace

HttpResponse ControlApi::handle(const HttpRequest& request) {
  const std::string& path = request.path;
  const bool get = request.method == "GET";
  const bool put = request.method == "PUT";
  if (path == "/fleet") return get ? jsonResponse(200, fleetJson(fleet_)) : methodNotAllowed();
  if (path == "/bmcs")
    return get ? jsonResponse(200, endpointsJson(fleet_.bmcs())) : methodNotAllowed();
  if (path == "/stats")
    return get ? jsonResponse(200, statsJson(fleet_.stats())) : methodNotAllowed();
  if (path == "/faults") return put ? putFleetFaults(fleet_, request) : methodNotAllowed();
  std::string id;
  bool faults = false;
  if (splitBmcPath(path, id, faults)) {
    if (faults) return put ? putBmcFaults(fleet_, id, request) : methodNotAllowed();
    return get ? bmcDetail(fleet_, id) : methodNotAllowed();
  }
  return jsonResponse(404, {{"code", "not_found"}, {"message", "no such resource: " + path}});
}

}  // namespace sim

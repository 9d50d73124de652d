#include "provisioner/http/problem.hpp"

#include <spdlog/common.h>
#include <nlohmann/json.hpp>

#include "provisioner/http/logging.hpp"

namespace provisioner::http {
namespace {

using common::ErrorKind;

struct KindStatus {
  ErrorKind kind;
  int status;
  std::string_view title;
};

// The one place that decides which HTTP status an error kind becomes.
constexpr KindStatus kKindStatuses[] = {
    {ErrorKind::kInvalidArgument, 400, "Bad Request"},
    {ErrorKind::kUnauthenticated, 401, "Unauthorized"},
    {ErrorKind::kPermissionDenied, 403, "Forbidden"},
    {ErrorKind::kNotFound, 404, "Not Found"},
    {ErrorKind::kConflict, 409, "Conflict"},
    {ErrorKind::kUnprocessable, 422, "Unprocessable Content"},
    {ErrorKind::kPayloadTooLarge, 413, "Payload Too Large"},
    {ErrorKind::kUnsupportedMediaType, 415, "Unsupported Media Type"},
    {ErrorKind::kInternal, 500, "Internal Server Error"},
    {ErrorKind::kProtocol, 502, "Bad Gateway"},
    {ErrorKind::kUnavailable, 503, "Service Unavailable"},
    {ErrorKind::kTimeout, 504, "Gateway Timeout"},
};

const KindStatus& entryFor(ErrorKind kind) {
  for (const auto& entry : kKindStatuses) {
    if (entry.kind == kind) return entry;
  }
  return entryFor(ErrorKind::kInternal);
}

struct StatusTitle {
  int status;
  std::string_view title;
};
// Titles of statuses the server answers without an ErrorKind.
constexpr StatusTitle kOtherTitles[] = {
    {405, "Method Not Allowed"}, {406, "Not Acceptable"},
    {408, "Request Timeout"},    {411, "Length Required"},
    {414, "URI Too Long"},       {416, "Range Not Satisfiable"},
    {417, "Expectation Failed"}, {431, "Request Header Fields Too Large"}};

std::string_view titleForStatus(int status) {
  for (const auto& entry : kKindStatuses) {
    if (entry.status == status) return entry.title;
  }
  for (const auto& entry : kOtherTitles) {
    if (entry.status == status) return entry.title;
  }
  return status >= 500 ? "Server Error" : "Client Error";
}

Response makeProblem(int status, std::string_view title, const std::string& code,
                     const std::string& detail, const std::string& field,
                     const std::string& request_id) {
  nlohmann::json body = {{"type", std::string(kProblemTypePrefix) + code},
                         {"title", title},
                         {"status", status},
                         {"code", code},
                         {"detail", detail}};
  if (!field.empty()) body["field"] = field;
  body["request_id"] = request_id;
  Response response = jsonResponse(status, body);
  response.content_type = std::string(kProblemContentType);
  return response;
}

constexpr std::string_view kInternalMessage =
    "an internal error occurred; report the request id to the operators";

}  // namespace

int httpStatusFor(common::ErrorKind kind) {
  return entryFor(kind).status;
}
int httpStatusFor(const common::Error& error) {
  return httpStatusFor(error.kind);
}
std::string_view titleFor(common::ErrorKind kind) {
  return entryFor(kind).title;
}

Response problemResponse(const common::Error& error, const std::string& request_id) {
  const auto& entry = entryFor(error.kind);
  if (error.kind == ErrorKind::kInternal) {
    // The client learns only that it failed; the operators get the real story by request id.
    logEvent(spdlog::level::err, "internal error",
             {{"request_id", request_id},
              {"code", error.code},
              {"error", error.message},
              {"detail", error.detail}});
    return makeProblem(entry.status, entry.title, "internal", std::string(kInternalMessage), {},
                       request_id);
  }
  const std::string code = error.code.empty() ? std::string(toString(error.kind)) : error.code;
  if (entry.status >= 500) {
    logEvent(spdlog::level::warn, "dependency error",
             {{"request_id", request_id},
              {"code", code},
              {"error", error.message},
              {"detail", error.detail}});
  }
  return makeProblem(entry.status, entry.title, code, error.message, error.field, request_id);
}

Response problemResponse(int status, const std::string& code, const std::string& detail,
                         const std::string& request_id) {
  return makeProblem(status, titleForStatus(status), code, detail, {}, request_id);
}

}  // namespace provisioner::http

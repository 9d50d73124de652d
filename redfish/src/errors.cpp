#include "redfish/errors.hpp"

#include <nlohmann/json.hpp>

#include "redfish/client.hpp"
#include "redfish/json.hpp"

namespace redfish {
namespace {

void collectMessages(const Json& holder, std::vector<std::string>& out) {
  const Json* infos = member(holder, "@Message.ExtendedInfo");
  if (infos == nullptr || !infos->is_array()) return;
  for (const Json& info : *infos) {
    std::string id = stringAt(info, "MessageId").value_or("");
    std::string text = stringAt(info, "Message").value_or("");
    if (id.empty() && text.empty()) continue;
    out.push_back(id.empty() ? text : text.empty() ? id : id + ": " + text);
  }
}

common::ErrorKind kindForStatus(long status) {
  switch (status) {
    case 400:
      return common::ErrorKind::kInvalidArgument;
    case 401:
      return common::ErrorKind::kUnauthenticated;
    case 403:
      return common::ErrorKind::kPermissionDenied;
    case 404:
      return common::ErrorKind::kNotFound;
    case 409:
    case 412:
      return common::ErrorKind::kConflict;
    case 503:
      return common::ErrorKind::kUnavailable;
    default:
      return common::ErrorKind::kProtocol;
  }
}

}  // namespace

std::vector<std::string> extendedInfoMessages(std::string_view body) {
  std::vector<std::string> messages;
  auto parsed = parseBody(body, "");
  if (!parsed) return messages;
  collectMessages(*parsed, messages);
  if (const Json* error = member(*parsed, "error")) {
    collectMessages(*error, messages);
    if (messages.empty()) {
      if (auto text = stringAt(*error, "message")) messages.push_back(*text);
    }
  }
  return messages;
}

common::Error httpError(std::string_view method, const Response& response) {
  auto messages = extendedInfoMessages(response.body);
  std::string message = "BMC answered HTTP " + std::to_string(response.status) + " to " +
                        std::string(method) + " " + response.url;
  if (!messages.empty()) message += ": " + messages.front();
  std::string detail;
  for (const auto& text : messages) {
    if (!detail.empty()) detail += "; ";
    detail += text;
  }
  return common::Error{kindForStatus(response.status),
                       std::string(codes::kHttpError),
                       std::move(message),
                       {},
                       std::move(detail)};
}

common::Error malformedResponse(std::string_view url, std::string_view what) {
  return common::Error{
      common::ErrorKind::kProtocol,
      std::string(codes::kMalformed),
      "BMC response from " + std::string(url) + " is malformed: " + std::string(what),
      {},
      std::string(url)};
}

bool certainlyNotActed(const common::Error& error) {
  // A 500 (kProtocol) may come from a BMC that acted halfway; a 4xx or a 503 did not act.
  if (error.code == codes::kHttpError) return error.kind != common::ErrorKind::kProtocol;
  for (std::string_view code :
       {codes::kSessionLimit, codes::kAuthFailed, codes::kNotAllowed, codes::kNotSupported,
        codes::kTlsError, codes::kPinMismatch, codes::kCancelled}) {
    if (error.code == code) return true;
  }
  return false;
}

}  // namespace redfish

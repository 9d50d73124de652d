#include "transport/session_rules.hpp"

#include <nlohmann/json.hpp>

#include "redfish/errors.hpp"
#include "redfish/json.hpp"

namespace redfish::detail {
namespace {

std::optional<std::string> linkIn(std::string_view body,
                                  std::initializer_list<std::string_view> path) {
  auto parsed = parseBody(body, "");
  if (!parsed) return std::nullopt;
  const Json* holder = at(*parsed, path);
  if (holder == nullptr) return std::nullopt;
  auto link = odataId(*holder);
  if (!link || link->empty()) return std::nullopt;
  return link;
}

bool mentionsSessionLimit(std::string_view id) {
  for (std::string_view word : {"Session", "Limit", "Exceeded"}) {
    if (id.find(word) != std::string_view::npos) return true;
  }
  return false;
}

}  // namespace

std::optional<std::string> sessionsLink(std::string_view rootBody) {
  return linkIn(rootBody, {"Links", "Sessions"});
}

std::optional<std::string> sessionServiceLink(std::string_view rootBody) {
  return linkIn(rootBody, {"SessionService"});
}

std::optional<std::string> sessionsOfService(std::string_view serviceBody) {
  return linkIn(serviceBody, {"Sessions"});
}

std::string loginBody(std::string_view username, std::string_view password) {
  Json body = Json::object();
  body["UserName"] = std::string(username);
  body["Password"] = std::string(password);
  // Replace, not throw, on invalid UTF-8 in operator-supplied credentials.
  return body.dump(-1, ' ', false, Json::error_handler_t::replace);
}

bool isSessionLimit(const Response& response) {
  if (response.status != 503 && response.status != 429 && response.status != 400) return false;
  for (const std::string& message : extendedInfoMessages(response.body)) {
    // "MessageId: text" or the bare id; the id is the part before ": ".
    std::string_view id = std::string_view(message).substr(0, message.find(": "));
    if (mentionsSessionLimit(id)) return true;
  }
  return false;
}

common::Error loginError(const Response& response, std::string_view url) {
  std::string where = "login to " + std::string(url);
  if (response.status == 401 || response.status == 403) {
    return common::Error{
        common::ErrorKind::kUnauthenticated,
        std::string(codes::kAuthFailed),
        "BMC refused the credentials (HTTP " + std::to_string(response.status) + ") at " + where,
        {},
        std::string(url)};
  }
  if (isSessionLimit(response)) {
    return common::Error{
        common::ErrorKind::kUnavailable,
        std::string(codes::kSessionLimit),
        "BMC has no free session (HTTP " + std::to_string(response.status) + ") at " + where,
        {},
        std::string(url)};
  }
  return httpError("POST", response);
}

}  // namespace redfish::detail

// Authentication and the BMC's own configuration: sessions, accounts, event subscriptions,
// Manager.ResetToDefaults. Credentials never appear in responses or errors.
#include <cstdio>

#include "model/handlers.hpp"
#include "model/json_util.hpp"

namespace sim::model {
namespace {

std::string decodeBase64(std::string_view text) {
  static const std::string alphabet =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  unsigned buffer = 0;
  int bits = 0;
  for (char c : text) {
    if (c == '=') break;
    auto index = alphabet.find(c);
    if (index == std::string::npos) return {};
    buffer = (buffer << 6) | static_cast<unsigned>(index);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((buffer >> bits) & 0xff));
    }
  }
  return out;
}

bool basicAuthMatches(const ModelState& s, std::string_view header) {
  if (!header.starts_with("Basic ")) return false;
  auto decoded = decodeBase64(header.substr(6));
  auto colon = decoded.find(':');
  return colon != std::string::npos && decoded.substr(0, colon) == s.credentials.username &&
         decoded.substr(colon + 1) == s.credentials.password;
}

std::string newToken(ModelState& s) {
  std::string token;
  for (int i = 0; i < 4; ++i) {
    char chunk[17];
    std::snprintf(chunk, sizeof chunk, "%016llx",
                  static_cast<unsigned long long>(s.uniform() * 18446744073709551615.0));
    token += chunk;
  }
  return token;
}

int sessionLimit(const ModelState& s) {
  return s.faults.maxSessions ? *s.faults.maxSessions : s.behaviour().sessionLimit;
}

std::string memberId(const std::string& collection, const std::string& path) {
  if (collection.empty() || !path.starts_with(collection + "/")) return {};
  auto id = path.substr(collection.size() + 1);
  return id.find('/') == std::string::npos ? id : std::string{};
}

// DELETE of a recorded account: gone from the collection and 404 from then on. The account the
// simulator's credentials belong to stays, as BMCs refuse to remove the account in use.
HttpResponse deleteAccount(ModelState& s, const std::string& path) {
  if (s.deletedAccounts.contains(path) || !s.profile->find(path)) {
    return redfishError(s, 404, "ResourceMissingAtURI",
                        "The resource at the URI " + path + " was not found.", {path});
  }
  if (path == s.loginAccount) {
    return redfishError(s, 409, "ResourceInUse",
                        "The change to the requested resource failed because the resource is in "
                        "use or in transition.");
  }
  s.deletedAccounts.insert(path);
  return noContent();
}

}  // namespace

// The account that holds the login credentials: the recorded one with that user name, else the
// first named account (renamed to the configured user).
std::string findLoginAccount(ModelState& s) {
  const auto* collection = s.profile->find(s.behaviour().accountsPath);
  std::string firstNamed;
  for (const auto& link : collection ? memberLinks(*collection) : std::vector<std::string>{}) {
    auto path = s.profile->canonicalPath(link);
    const auto* account = s.profile->find(path);
    auto user = account ? stringAt(*account, "UserName") : std::string{};
    if (user == s.credentials.username) return path;
    if (firstNamed.empty() && !user.empty()) firstNamed = path;
  }
  return firstNamed;
}

bool authenticated(ModelState& s, const HttpRequest& request) {
  auto token = request.header("x-auth-token");
  if (!token.empty()) {
    for (auto& [id, session] : s.sessions) {
      if (session.token == token) {
        session.lastUsed = s.now();
        return true;
      }
    }
    return false;
  }
  return basicAuthMatches(s, request.header("authorization"));
}

void expireSessions(ModelState& s) {
  const double timeout =
      s.faults.sessionTimeoutSeconds.value_or(s.behaviour().sessionTimeoutSeconds);
  std::erase_if(s.sessions,
                [&](const auto& entry) { return s.now() - entry.second.lastUsed > timeout; });
}

HttpResponse createSession(ModelState& s, const HttpRequest& request) {
  const auto& b = s.behaviour();
  auto body = parseBody(request);
  if (!body || !body->is_object()) {
    return redfishError(s, 400, "MalformedJSON", "The request body is not a JSON object.");
  }
  auto user = stringAt(*body, "UserName");
  auto password = stringAt(*body, "Password");
  if (user != s.credentials.username || password != s.credentials.password) {
    return redfishError(s, 401, "ResourceAtUriUnauthorized",
                        "While accessing the resource at " + b.sessionsPath +
                            ", the service received an authorization error.",
                        {b.sessionsPath});
  }
  if (s.faults.sessionsExhausted || static_cast<int>(s.sessions.size()) >= sessionLimit(s)) {
    return redfishError(s, b.sessionLimitStatus, "SessionLimitExceeded",
                        "The session establishment failed due to the number of simultaneous "
                        "sessions exceeding the limit of the implementation.");
  }
  Session session{freshId(s, b.sessionsPath), newToken(s), user, s.now()};
  auto location = b.sessionsPath + "/" + session.id;
  s.sessions[session.id] = session;
  auto rendered = render(s, location);
  auto response = HttpResponse::json(201, rendered ? rendered->dump() : "{}");
  response.headers.emplace_back("X-Auth-Token", session.token);
  response.headers.emplace_back("Location", location);
  return response;
}

std::optional<nlohmann::json> renderDynamic(ModelState& s, const std::string& path) {
  const auto& b = s.behaviour();
  auto sessionId = memberId(b.sessionsPath, path);
  if (auto it = s.sessions.find(sessionId); !sessionId.empty() && it != s.sessions.end()) {
    return nlohmann::json{{"@odata.id", path},
                          {"@odata.type", "#Session.v1_3_0.Session"},
                          {"Id", sessionId},
                          {"Name", "User Session"},
                          {"UserName", it->second.user}};
  }
  if (auto it = s.subscriptions.find(path); it != s.subscriptions.end()) return it->second;
  auto jobId = memberId(b.dellJobsPath, path);
  if (!jobId.empty() && contains(s.jobs, jobId)) {
    bool scheduled = s.biosJobScheduled && s.jobs.back() == jobId;
    return nlohmann::json{
        {"@odata.id", path},
        {"@odata.type", "#DellJob.v1_5_0.DellJob"},
        {"Id", jobId},
        {"JobType", "BIOSConfiguration"},
        {"Name", "Configure: BIOS.Setup.1-1"},
        {"JobState", scheduled ? "Scheduled" : "Completed"},
        {"PercentComplete", scheduled ? 0 : 100},
        {"Message", scheduled ? "Task successfully scheduled." : "Job completed successfully."}};
  }
  return std::nullopt;
}

std::optional<HttpResponse> deleteDynamic(ModelState& s, const std::string& path) {
  auto sessionId = memberId(s.behaviour().sessionsPath, path);
  if (!sessionId.empty()) {
    if (s.sessions.erase(sessionId) == 0) {
      return redfishError(s, 404, "ResourceMissingAtURI",
                          "The resource at the URI " + path + " was not found.", {path});
    }
    return noContent();
  }
  if (s.subscriptions.erase(path) > 0) return noContent();
  if (!memberId(s.behaviour().accountsPath, path).empty()) return deleteAccount(s, path);
  return std::nullopt;
}

HttpResponse patchAccount(ModelState& s, const std::string& path, const nlohmann::json& body) {
  const auto* password = member(body, "Password");
  const auto* user = member(body, "UserName");
  if ((password && !password->is_string()) || (user && !user->is_string())) {
    return redfishError(s, 400, "PropertyValueTypeError",
                        "The value for a property is of a different type than it can accept.", {},
                        password ? "#/Password" : "#/UserName");
  }
  if (path == s.loginAccount) {
    if (password) s.credentials.password = password->get<std::string>();
    if (user) s.credentials.username = user->get<std::string>();
  }
  return noContent();
}

HttpResponse createSubscription(ModelState& s, const HttpRequest& request) {
  auto body = parseBody(request);
  auto destination = body ? stringAt(*body, "Destination") : std::string{};
  if (!destination.starts_with("http://") && !destination.starts_with("https://")) {
    return redfishError(s, 400, "PropertyMissing",
                        "The property Destination is a required property and must be included "
                        "in the request.",
                        {"Destination"}, "#/Destination");
  }
  auto id = freshId(s, s.behaviour().subscriptionsPath);
  auto path = s.behaviour().subscriptionsPath + "/" + id;
  nlohmann::json subscription = {{"@odata.id", path},
                                 {"@odata.type", "#EventDestination.v1_7_0.EventDestination"},
                                 {"Id", id},
                                 {"Name", "EventSubscription " + id},
                                 {"Destination", destination},
                                 {"Protocol", stringAt(*body, "Protocol", "Redfish")},
                                 {"Context", stringAt(*body, "Context")},
                                 {"EventTypes", stringsAt(*body, "EventTypes")}};
  s.subscriptions[path] = subscription;
  auto response = HttpResponse::json(201, subscription.dump());
  response.headers.emplace_back("Location", path);
  return response;
}

HttpResponse resetManagerToDefaults(ModelState& s) {
  s.credentials = s.initialCredentials;
  s.deletedAccounts.clear();  // factory defaults bring the recorded accounts back
  s.sessions.clear();
  s.subscriptions.clear();
  return noContent();
}

}  // namespace sim::model

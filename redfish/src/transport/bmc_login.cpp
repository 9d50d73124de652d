// The session half of BmcState: discovery through the service root, the single login, the
// waiters behind it, and the DELETE that ends a session.
#include <nlohmann/json.hpp>

#include "redfish/errors.hpp"
#include "redfish/json.hpp"
#include "transport/bmc_state.hpp"
#include "transport/engine.hpp"
#include "transport/session_rules.hpp"
#include "transport/url.hpp"

namespace redfish::detail {
namespace {

constexpr std::string_view kDefaultSessions = "/redfish/v1/SessionService/Sessions";

// Location (relative or absolute) of the new session, else the body's @odata.id.
std::string sessionLocation(const std::string& baseUrl, const Response& response) {
  std::string_view location = response.header("location");
  if (location.empty()) {
    auto parsed = parseBody(response.body, response.url);
    if (parsed) {
      if (auto id = odataId(*parsed)) return resolveTarget(baseUrl, *id).valueOr(std::string());
    }
    return {};
  }
  return resolveTarget(baseUrl, location).valueOr(std::string());
}

}  // namespace

void BmcState::beginLogin() {
  auth_ = Auth::kLoggingIn;
  if (!sessionsTarget_.empty()) {
    postLogin(sessionsTarget_);
    return;
  }
  queue_.push_front(
      internalCall(Method::kGet, "/redfish/v1", {},
                   [this](common::Result<Response> result) { onServiceRoot(std::move(result)); }));
}

void BmcState::onServiceRoot(common::Result<Response> result) {
  if (!result) return failLogin(result.error());
  if (!result->isSuccess()) return failLogin(httpError("GET", *result));
  if (auto link = sessionsLink(result->body)) return postLogin(*link);
  if (auto service = sessionServiceLink(result->body)) {
    queue_.push_front(internalCall(Method::kGet, *service, {},
                                   [this, service = *service](common::Result<Response> next) {
                                     onSessionService(std::move(next), service);
                                   }));
    engine_.markReady(this);
    return;
  }
  if (authMode_ == BmcEndpoint::Auth::kSession) return postLogin(std::string(kDefaultSessions));
  useBasicAuth();
}

// Many BMCs want a session to read the SessionService itself: then its Sessions member is
// assumed where the Redfish specification puts it.
void BmcState::onSessionService(common::Result<Response> result, const std::string& service) {
  if (!result && result.error().code == codes::kCancelled) return failLogin(result.error());
  std::optional<std::string> link;
  if (result && result->isSuccess()) link = sessionsOfService(result->body);
  if (!link) link = service + "/Sessions";
  postLogin(*link);
}

void BmcState::postLogin(const std::string& sessionsTarget) {
  sessionsTarget_ = sessionsTarget;
  auto call = internalCall(Method::kPost, sessionsTarget, loginBody(username_, password_),
                           [this](common::Result<Response> result) { onLogin(std::move(result)); });
  engine_.countLogin();
  queue_.push_front(std::move(call));
  engine_.markReady(this);
}

void BmcState::onLogin(common::Result<Response> result) {
  if (!result) return failLogin(result.error());
  if (!result->isSuccess()) {
    sessionsTarget_.clear();  // rediscover next time: the link may have been wrong
    return failLogin(loginError(*result, result->url));
  }
  std::string token(result->header("x-auth-token"));
  if (token.empty()) {
    return failLogin(malformedResponse(result->url, "login answered without X-Auth-Token"));
  }
  token_ = std::move(token);
  sessionUrl_ = sessionLocation(baseUrl_, *result);
  auth_ = Auth::kSession;
  releaseAuthWaiters();
}

void BmcState::useBasicAuth() {
  auth_ = Auth::kBasic;
  releaseAuthWaiters();
}

void BmcState::failLogin(const common::Error& error) {
  auth_ = Auth::kNone;
  std::deque<CallPtr> waiters;
  waiters.swap(authWaiters_);
  for (const CallPtr& call : waiters) complete(call, error);
}

void BmcState::releaseAuthWaiters() {
  // Back to the front of the queue in their original order.
  queue_.insert(queue_.begin(), authWaiters_.begin(), authWaiters_.end());
  authWaiters_.clear();
  engine_.markReady(this);
}

void BmcState::closeSession(std::function<void(common::Result<void>)> done) {
  cancelAll();
  if (auth_ != Auth::kSession || sessionUrl_.empty()) {
    if (auth_ == Auth::kSession) auth_ = Auth::kNone;
    token_.clear();
    done(common::success());
    return;
  }
  auto call = internalCall(Method::kDelete, sessionUrl_, {},
                           [done = std::move(done)](common::Result<Response> result) {
                             if (!result) return done(result.error());
                             if (!result->isSuccess() && result->status != 404) {
                               return done(httpError("DELETE", *result));
                             }
                             done(common::success());
                           });
  call->request.headers.emplace_back("X-Auth-Token", token_);
  call->maxAttempts = 1;
  call->timeoutMs = static_cast<long>(engine_.options().closeTimeout.count());
  auth_ = Auth::kNone;
  token_.clear();
  sessionUrl_.clear();
  queue_.push_front(std::move(call));
  engine_.markReady(this);
}

}  // namespace redfish::detail

#include "transport/bmc_state.hpp"

#include <chrono>

#include "redfish/errors.hpp"
#include "transport/engine.hpp"
#include "transport/retry_policy.hpp"
#include "transport/url.hpp"

namespace redfish::detail {
namespace {

common::Error cancelled(const std::string& url) {
  return common::Error{common::ErrorKind::kUnavailable,
                       std::string(codes::kCancelled),
                       "request to " + url + " was cancelled",
                       {},
                       url};
}

}  // namespace

BmcState::BmcState(Engine& engine, std::string baseUrl, const BmcEndpoint& endpoint)
    : engine_(engine),
      baseUrl_(std::move(baseUrl)),
      username_(endpoint.username),
      password_(endpoint.password),
      authMode_(endpoint.auth),
      tls_(endpoint.tls) {
  if (authMode_ == BmcEndpoint::Auth::kBasic) auth_ = Auth::kBasic;
}

void BmcState::submit(CallPtr call) {
  if (engine_.stopping()) {
    complete(call, cancelled(baseUrl_ + call->request.target));
    return;
  }
  auto url = resolveTarget(baseUrl_, call->request.target);
  if (!url) {
    complete(call, url.error());
    return;
  }
  call->url = std::move(*url);
  queue_.push_back(std::move(call));
  engine_.markReady(this);
}

bool BmcState::hasStartable() const {
  return !queue_.empty() && inFlight_ < engine_.options().maxInFlightPerBmc;
}

bool BmcState::needsLogin(const Call& call) const {
  return !call.internal && call.request.authenticated && auth_ != Auth::kSession &&
         auth_ != Auth::kBasic;
}

void BmcState::startOne() {
  while (hasStartable()) {
    CallPtr call = std::move(queue_.front());
    queue_.pop_front();
    if (needsLogin(*call)) {
      authWaiters_.push_back(std::move(call));
      if (auth_ == Auth::kNone) beginLogin();  // queues the discovery call at the front
      continue;
    }
    if (startAttempt(call)) return;
  }
}

bool BmcState::startAttempt(const CallPtr& call) {
  const TransportOptions& options = engine_.options();
  bool authenticated = call->request.authenticated && !call->internal;
  call->tokenUsed = authenticated && auth_ == Auth::kSession ? token_ : std::string();
  AttemptSetup setup;
  setup.request = &call->request;
  setup.url = call->url;
  setup.token = call->tokenUsed;
  if (authenticated && auth_ == Auth::kBasic) {
    setup.basicUser = &username_;
    setup.basicPassword = &password_;
  }
  if (baseUrl_.rfind("https://", 0) == 0) setup.tls = &tls_;
  setup.timeoutMs = call->timeoutMs > 0 ? call->timeoutMs : options.requestTimeout.count();
  setup.connectTimeoutMs = std::min<long>(options.connectTimeout.count(), setup.timeoutMs);
  setup.maxBodyBytes = options.maxBodyBytes;
  call->easy = std::make_unique<EasyAttempt>();
  auto prepared = call->easy->prepare(setup);
  if (!prepared) {
    call->easy.reset();
    complete(call, prepared.error());
    return false;
  }
  call->attempts++;
  inFlight_++;
  if (inFlight_ > peakInFlight_.load()) peakInFlight_.store(inFlight_);
  engine_.startAttempt(*this, call);
  return true;
}

void BmcState::onAttemptDone(const CallPtr& call, AttemptOutcome outcome) {
  inFlight_--;
  call->easy.reset();
  if (call->finished) return;
  int maxAttempts = call->maxAttempts > 0 ? call->maxAttempts : engine_.options().maxAttempts;
  bool retry = shouldRetry(call->request.method, outcome.failure, outcome.response.status,
                           call->attempts, maxAttempts);
  const auto delay = retry ? retryDelay(*call, outcome) : std::chrono::milliseconds{0};
  if (engine_.options().trace) {
    engine_.options().trace(TraceEvent{toString(call->request.method), call->url,
                                       outcome.response.status, static_cast<int>(outcome.code),
                                       call->attempts, retry, delay});
  }
  if (retry) {
    scheduleRetry(call, delay);
    return;
  }
  if (outcome.failure != AttemptFailure::kNone) {
    complete(call, transportError(*call, outcome));
    return;
  }
  if (outcome.response.status == 401 && handleUnauthorized(call)) return;
  complete(call, std::move(outcome.response));
}

// The backoff before the next try, or the BMC's Retry-After (capped) when it sent one.
std::chrono::milliseconds BmcState::retryDelay(const Call& call, const AttemptOutcome& outcome) {
  const TransportOptions& options = engine_.options();
  auto delay =
      backoffDelay(call.attempts, options.backoffBase, options.backoffCap, engine_.random());
  if (outcome.failure == AttemptFailure::kNone) {
    auto retryAfter =
        parseRetryAfter(outcome.response.header("retry-after"), std::chrono::system_clock::now());
    if (retryAfter) delay = std::min(*retryAfter, options.retryAfterCap);
  }
  return delay;
}

void BmcState::scheduleRetry(const CallPtr& call, std::chrono::milliseconds delay) {
  backingOff_.insert(call);
  engine_.addTimer(delay, [this, call] {
    if (backingOff_.erase(call) == 0 || call->finished) return;
    queue_.push_front(call);
    engine_.markReady(this);
  });
}

// A 401 to an authenticated request: one re-login, then the request once more.
bool BmcState::handleUnauthorized(const CallPtr& call) {
  if (call->internal || !call->request.authenticated) return false;
  if (auth_ == Auth::kBasic || call->relogged) {
    complete(call, common::Error{common::ErrorKind::kUnauthenticated,
                                 std::string(codes::kAuthFailed),
                                 "BMC refused the credentials (HTTP 401) for " +
                                     std::string(toString(call->request.method)) + " " + call->url,
                                 {},
                                 call->url});
    return true;
  }
  call->relogged = true;
  if (auth_ == Auth::kSession && token_ == call->tokenUsed) {
    auth_ = Auth::kNone;  // that session is gone on the BMC's side
    token_.clear();
    sessionUrl_.clear();
  }
  queue_.push_front(call);  // startOne parks it behind the login when one is needed
  engine_.markReady(this);
  return true;
}

common::Error BmcState::transportError(const Call& call, const AttemptOutcome& outcome) const {
  std::string what = std::string(toString(call.request.method)) + " " + call.url;
  std::string rejected = tls_.rejected();
  if (outcome.code != CURLE_OK && !rejected.empty()) {
    return common::Error{common::ErrorKind::kConflict,
                         std::string(codes::kPinMismatch),
                         "TLS certificate of " + baseUrl_ + " changed: expected SHA-256 " +
                             tls_.expected() + ", presented " + rejected,
                         {},
                         call.url};
  }
  if (outcome.bodyTooLarge) return malformedResponse(call.url, outcome.curlText);
  if (outcome.code == CURLE_OPERATION_TIMEDOUT) {
    return common::Error{common::ErrorKind::kTimeout,
                         std::string(codes::kTimeout),
                         "BMC did not answer " + what + " in time: " + outcome.curlText,
                         {},
                         call.url};
  }
  if (outcome.failure == AttemptFailure::kTls) {
    return common::Error{
        common::ErrorKind::kUnavailable,
        std::string(codes::kTlsError),
        "TLS handshake with " + baseUrl_ + " failed for " + what + ": " + outcome.curlText,
        {},
        call.url};
  }
  return common::Error{common::ErrorKind::kUnavailable,
                       std::string(codes::kUnreachable),
                       "cannot reach BMC for " + what + ": " + outcome.curlText,
                       {},
                       call.url};
}

void BmcState::complete(const CallPtr& call, common::Result<Response> result) {
  if (call->finished) return;
  call->finished = true;
  if (!call->internal) engine_.countCompleted();
  ResponseCallback done = std::move(call->done);
  call->request.body.clear();  // may hold a password (login)
  try {
    if (done) done(std::move(result));
  } catch (...) {
    // A throwing callback is a caller's bug; it must not take the loop (and every BMC) down.
  }
}

void BmcState::cancelAll() {
  std::vector<CallPtr> victims = engine_.takeRunning(*this);
  inFlight_ -= std::min(inFlight_, victims.size());
  for (auto* list : {&queue_, &authWaiters_}) {
    victims.insert(victims.end(), list->begin(), list->end());
    list->clear();
  }
  victims.insert(victims.end(), backingOff_.begin(), backingOff_.end());
  backingOff_.clear();
  for (const CallPtr& call : victims) {
    call->easy.reset();
    complete(call, cancelled(call->url.empty() ? baseUrl_ : call->url));
  }
}

void BmcState::setCredentials(std::string username, std::string password) {
  username_ = std::move(username);
  password_ = std::move(password);
}

CallPtr BmcState::internalCall(Method method, std::string target, std::string body,
                               std::function<void(common::Result<Response>)> then) {
  auto call = std::make_shared<Call>();
  call->internal = true;
  call->request.method = method;
  call->request.target = std::move(target);
  call->request.body = std::move(body);
  call->request.authenticated = false;
  call->done = std::move(then);
  auto url = resolveTarget(baseUrl_, call->request.target);
  call->url = url ? *url : baseUrl_ + "/";
  return call;
}

}  // namespace redfish::detail

// Everything one BMC needs on the loop thread: its FIFO of waiting calls, the per-BMC limit, the
// session (one login at a time, re-login once on 401), retries and cancellation.
#pragma once

#include <atomic>
#include <deque>
#include <functional>
#include <string>
#include <unordered_set>
#include <vector>

#include "redfish/transport.hpp"
#include "transport/call.hpp"
#include "transport/tls_pin.hpp"

namespace redfish::detail {

class Engine;

class BmcState {
 public:
  BmcState(Engine& engine, std::string baseUrl, const BmcEndpoint& endpoint);

  // Any thread.
  const std::string& baseUrl() const { return baseUrl_; }
  std::string certificateFingerprint() const { return tls_.observed(); }
  std::size_t peakInFlight() const { return peakInFlight_.load(); }

  // Loop thread only.
  void submit(CallPtr call);
  bool hasStartable() const;
  void startOne();  // starts at most one attempt, consuming at least one queued call
  void onAttemptDone(const CallPtr& call, AttemptOutcome outcome);
  void cancelAll();
  // Cancels, then DELETEs the open session (if any); `done` runs once either way.
  void closeSession(std::function<void(common::Result<void>)> done);
  void setCredentials(std::string username, std::string password);
  bool inReadyRing = false;

 private:
  enum class Auth { kNone, kLoggingIn, kSession, kBasic };

  bool needsLogin(const Call& call) const;
  bool startAttempt(const CallPtr& call);
  void complete(const CallPtr& call, common::Result<Response> result);
  std::chrono::milliseconds retryDelay(const Call& call, const AttemptOutcome& outcome);
  void scheduleRetry(const CallPtr& call, std::chrono::milliseconds delay);
  bool handleUnauthorized(const CallPtr& call);
  common::Error transportError(const Call& call, const AttemptOutcome& outcome) const;
  CallPtr internalCall(Method method, std::string target, std::string body,
                       std::function<void(common::Result<Response>)> then);

  // Login: service root -> (SessionService ->) POST Sessions.
  void beginLogin();
  void onServiceRoot(common::Result<Response> result);
  void onSessionService(common::Result<Response> result, const std::string& service);
  void postLogin(const std::string& sessionsTarget);
  void onLogin(common::Result<Response> result);
  void useBasicAuth();
  void failLogin(const common::Error& error);
  void releaseAuthWaiters();

  Engine& engine_;
  const std::string baseUrl_;
  std::string username_;
  std::string password_;
  BmcEndpoint::Auth authMode_;
  TlsPin tls_;

  std::deque<CallPtr> queue_;        // waiting for a slot, FIFO (retries and logins go first)
  std::deque<CallPtr> authWaiters_;  // waiting for the login in progress
  std::unordered_set<CallPtr> backingOff_;
  std::size_t inFlight_ = 0;
  std::atomic<std::size_t> peakInFlight_{0};

  Auth auth_ = Auth::kNone;
  std::string sessionsTarget_;  // the Sessions collection, once discovered
  std::string token_;
  std::string sessionUrl_;
};

}  // namespace redfish::detail

// One logical request from submission to its single completion, across attempts and logins.
#pragma once

#include <memory>
#include <string>

#include "redfish/client.hpp"
#include "transport/easy_attempt.hpp"

namespace redfish::detail {

class BmcState;

struct Call {
  Request request;
  ResponseCallback done;  // a user's callback, or a continuation of the login/close machinery
  std::string url;        // resolved absolute URL
  bool internal = false;  // login, discovery or session DELETE: never waits for a login
  int attempts = 0;       // attempts started
  int maxAttempts = 0;    // 0: the transport's option
  long timeoutMs = 0;     // 0: the transport's option
  bool relogged = false;  // the one re-login after a 401 is spent
  std::string tokenUsed;  // X-Auth-Token of the current attempt
  bool finished = false;  // `done` has run: timers and cancels ignore the call
  std::unique_ptr<EasyAttempt> easy;  // while in flight
};
using CallPtr = std::shared_ptr<Call>;

}  // namespace redfish::detail

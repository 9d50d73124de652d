// When to retry an attempt and how long to wait: jittered exponential backoff, Retry-After.
#pragma once

#include <chrono>
#include <optional>
#include <random>
#include <string_view>

#include "redfish/client.hpp"
#include "redfish/transport.hpp"

namespace redfish::detail {

// How an attempt ended below or at HTTP, reduced to what the retry decision needs.
enum class AttemptFailure {
  kNone,             // a final HTTP status arrived
  kConnect,          // no connection: refused, DNS, connect time-out (request never sent)
  kBrokenAfterSend,  // reset or empty reply after the request went out
  kTimeout,          // time-out after the request was sent
  kTls,              // handshake or certificate failure: never retried
  kOther,            // local failure (body too large, bad option): never retried
};

// Whether attempt number `attempt` (1-based) may be followed by another.
bool shouldRetry(Method method, AttemptFailure failure, long status, int attempt, int maxAttempts);

// Full range: base * 2^(attempt-1) capped, then jittered uniformly into [half, full].
std::chrono::milliseconds backoffDelay(int attempt, std::chrono::milliseconds base,
                                       std::chrono::milliseconds cap, std::mt19937_64& random);

// "120" or an HTTP-date ("Sun, 06 Nov 1994 08:49:37 GMT"); nullopt when absent or malformed.
// A date in the past reads as zero.
std::optional<std::chrono::milliseconds> parseRetryAfter(std::string_view value,
                                                         std::chrono::system_clock::time_point now);

}  // namespace redfish::detail

// Shared helpers for the transport tests: endpoints for fixture servers, quick options, and
// waiting on asynchronous completions with a generous deadline (never a sleep).
#pragma once

#include <chrono>
#include <future>
#include <memory>
#include <string>
#include <vector>

#include "redfish/support/fixture_server.hpp"
#include "redfish/transport.hpp"

namespace transport_test {

inline constexpr auto kDeadline = std::chrono::seconds(20);

// Fast retries so that tests finish quickly; limits as the defaults.
inline redfish::TransportOptions quickOptions() {
  redfish::TransportOptions options;
  options.backoffBase = std::chrono::milliseconds(5);
  options.backoffCap = std::chrono::milliseconds(20);
  options.requestTimeout = std::chrono::milliseconds(5000);
  options.connectTimeout = std::chrono::milliseconds(2000);
  options.closeTimeout = std::chrono::milliseconds(2000);
  return options;
}

inline redfish::BmcEndpoint endpointFor(const fixture::FixtureServer& server) {
  redfish::BmcEndpoint endpoint;
  endpoint.baseUrl = server.baseUrl();
  endpoint.username = server.config().username;
  endpoint.password = server.config().password;
  return endpoint;
}

inline redfish::Request get(std::string target) {
  redfish::Request request;
  request.target = std::move(target);
  return request;
}

using Pending = std::future<common::Result<redfish::Response>>;

inline Pending sendAsync(redfish::Client& client, redfish::Request request) {
  auto promise = std::make_shared<std::promise<common::Result<redfish::Response>>>();
  auto future = promise->get_future();
  client.sendAsync(std::move(request), [promise](common::Result<redfish::Response> result) {
    promise->set_value(std::move(result));
  });
  return future;
}

// Waits for the result; a missing completion fails as bmc_test_deadline rather than hanging.
inline common::Result<redfish::Response> await(Pending& pending) {
  if (pending.wait_for(kDeadline) != std::future_status::ready) {
    return common::Error{common::ErrorKind::kTimeout, "test_deadline", "no completion", {}, {}};
  }
  return pending.get();
}

inline std::string codeOf(const common::Result<redfish::Response>& result) {
  return result ? std::string("ok") : result.error().code;
}

}  // namespace transport_test

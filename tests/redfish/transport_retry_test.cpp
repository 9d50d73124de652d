// Retries, Retry-After, time-outs and connection failures through the real transport.
#include <catch2/catch.hpp>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <mutex>
#include <vector>

#include "redfish/errors.hpp"
#include "redfish/support/fixture_server.hpp"
#include "redfish/support/transport_test_util.hpp"
#include "redfish/transport.hpp"

using namespace transport_test;
using fixture::FixtureConfig;
using fixture::FixtureServer;
using fixture::Reply;

namespace {

Reply status(int code) {
  Reply reply;
  reply.status = code;
  reply.body = "{}";
  return reply;
}

// A port on 127.0.0.1 that nobody listens on: bound then closed.
int closedPort() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address));
  socklen_t length = sizeof(address);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
  ::close(fd);
  return ntohs(address.sin_port);
}

redfish::Request unauthenticatedGet(std::string target) {
  auto request = get(std::move(target));
  request.authenticated = false;
  return request;
}

}  // namespace

TEST_CASE("transport retries a 503 and returns the 200 that follows", "[transport][retry]") {
  FixtureServer bmc;
  bmc.script("GET", "/redfish/v1/Systems", {status(503), status(502)});
  redfish::Transport transport(quickOptions());
  auto client = transport.client(endpointFor(bmc)).value();
  auto result = client->send(get("/redfish/v1/Systems"));
  REQUIRE(result.ok());
  CHECK(result->status == 200);
  CHECK(bmc.count("GET", "/redfish/v1/Systems") == 3);
  CHECK(transport.stats().retries == 2);
}

TEST_CASE("transport waits as long as Retry-After says before retrying", "[transport][retry]") {
  FixtureServer bmc;
  Reply busy = status(503);
  busy.headers = {{"Retry-After", "1"}};
  bmc.script("GET", "/redfish/v1/Busy", {busy});
  redfish::Transport transport(quickOptions());  // backoff alone would be ~20 ms
  auto client = transport.client(endpointFor(bmc)).value();
  auto result = client->send(get("/redfish/v1/Busy"));
  REQUIRE(result.ok());
  std::vector<std::chrono::steady_clock::time_point> times;
  for (const auto& arrival : bmc.arrivals()) {
    if (arrival.path == "/redfish/v1/Busy") times.push_back(arrival.at);
  }
  REQUIRE(times.size() == 2);
  CHECK(times[1] - times[0] >= std::chrono::milliseconds(1000));
}

TEST_CASE("transport caps Retry-After at the configured maximum", "[transport][retry]") {
  FixtureServer bmc;
  Reply busy = status(503);
  busy.headers = {{"Retry-After", "3600"}};
  bmc.script("GET", "/redfish/v1/Busy", {busy});
  auto options = quickOptions();
  options.retryAfterCap = std::chrono::milliseconds(50);
  struct Try {
    long status;
    bool willRetry;
    std::chrono::milliseconds retryIn;
  };
  std::mutex mutex;
  std::vector<Try> busyTries;  // the trace's views live only during the call
  options.trace = [&](const redfish::TraceEvent& e) {
    std::lock_guard lock(mutex);
    if (e.url.find("/redfish/v1/Busy") == std::string_view::npos) return;
    busyTries.push_back({e.status, e.willRetry, e.retryIn});
  };
  redfish::Transport transport(options);
  auto client = transport.client(endpointFor(bmc)).value();
  auto pending = sendAsync(*client, get("/redfish/v1/Busy"));
  auto result = await(pending);  // an uncapped wait would hit the test deadline
  REQUIRE(result.ok());
  CHECK(result->status == 200);
  // The trace says how long the transport waited before the next try (what the service logs).
  std::lock_guard lock(mutex);
  REQUIRE(busyTries.size() == 2);
  CHECK(busyTries[0].status == 503);
  CHECK(busyTries[0].willRetry);
  CHECK(busyTries[0].retryIn == std::chrono::milliseconds(50));
  CHECK_FALSE(busyTries[1].willRetry);
  CHECK(busyTries[1].retryIn == std::chrono::milliseconds(0));
}

TEST_CASE("transport does not retry 400 404 or 500", "[transport][retry]") {
  FixtureServer bmc;
  redfish::Transport transport(quickOptions());
  auto client = transport.client(endpointFor(bmc)).value();
  for (int code : {400, 404, 500}) {
    std::string path = "/redfish/v1/Status" + std::to_string(code);
    bmc.script("GET", path, {status(code)});
    auto result = client->send(get(path));
    REQUIRE(result.ok());  // an HTTP status is a Response, not an error
    CHECK(result->status == code);
    CHECK(bmc.count("GET", path) == 1);
  }
  CHECK(transport.stats().retries == 0);
}

TEST_CASE("transport returns the last 503 when the retry budget is spent", "[transport][retry]") {
  FixtureServer bmc;
  bmc.script("GET", "/redfish/v1/Systems", {status(503), status(503), status(503), status(503)});
  auto options = quickOptions();
  options.maxAttempts = 3;
  redfish::Transport transport(options);
  auto client = transport.client(endpointFor(bmc)).value();
  auto result = client->send(get("/redfish/v1/Systems"));
  REQUIRE(result.ok());
  CHECK(result->status == 503);
  CHECK(bmc.count("GET", "/redfish/v1/Systems") == 3);
}

TEST_CASE("transport retries a POST answered 503 but not one that timed out",
          "[transport][retry]") {
  FixtureServer bmc;
  Reply held = status(200);
  held.hold = true;
  bmc.script("POST", "/redfish/v1/Actions/Reset", {status(503), held});
  auto options = quickOptions();
  options.requestTimeout = std::chrono::milliseconds(300);
  redfish::Transport transport(options);
  auto client = transport.client(endpointFor(bmc)).value();
  redfish::Request post = get("/redfish/v1/Actions/Reset");
  post.method = redfish::Method::kPost;
  post.body = R"({"ResetType":"On"})";
  post.authenticated = false;
  auto result = client->send(post);
  REQUIRE_FALSE(result.ok());
  CHECK(result.error().code == redfish::codes::kTimeout);
  CHECK(bmc.count("POST", "/redfish/v1/Actions/Reset") == 2);  // 503, then the time-out only
  CHECK_FALSE(redfish::certainlyNotActed(result.error()));     // the BMC may have reset the host
}

TEST_CASE("certainlyNotActed tells a refused action from one that may have happened",
          "[transport][retry]") {
  auto answered = [](long status) {
    redfish::Response response;
    response.status = status;
    response.url = "https://bmc/redfish/v1/Systems/1/Actions/ComputerSystem.Reset";
    return redfish::httpError("POST", response);
  };
  CHECK(redfish::certainlyNotActed(answered(400)));
  CHECK(redfish::certainlyNotActed(answered(409)));
  CHECK(redfish::certainlyNotActed(answered(503)));  // the transport's retries ran out
  CHECK_FALSE(redfish::certainlyNotActed(answered(500)));
  auto error = [](std::string_view code) {
    return common::Error{common::ErrorKind::kUnavailable, std::string(code), "x", {}, {}};
  };
  CHECK(redfish::certainlyNotActed(error(redfish::codes::kSessionLimit)));
  CHECK(redfish::certainlyNotActed(error(redfish::codes::kAuthFailed)));
  CHECK_FALSE(redfish::certainlyNotActed(error(redfish::codes::kTimeout)));
  CHECK_FALSE(redfish::certainlyNotActed(error(redfish::codes::kUnreachable)));
  CHECK_FALSE(redfish::certainlyNotActed(error(redfish::codes::kMalformed)));
}

TEST_CASE("transport reports bmc_unreachable after retrying a refused connection",
          "[transport][retry]") {
  redfish::Transport transport(quickOptions());
  redfish::BmcEndpoint endpoint;
  endpoint.baseUrl = "http://127.0.0.1:" + std::to_string(closedPort());
  auto client = transport.client(endpoint).value();
  auto result = client->send(unauthenticatedGet("/redfish/v1"));
  REQUIRE_FALSE(result.ok());
  CHECK(result.error().code == redfish::codes::kUnreachable);
  CHECK(result.error().kind == common::ErrorKind::kUnavailable);
  CHECK(result.error().message.find(endpoint.baseUrl) != std::string::npos);
  CHECK(transport.stats().attempts == 4);
  CHECK(transport.stats().retries == 3);
}

TEST_CASE("transport reports bmc_timeout when the BMC holds every attempt", "[transport][retry]") {
  FixtureServer bmc;
  Reply held = status(200);
  held.hold = true;
  bmc.script("GET", "/redfish/v1/Hang", {held, held});
  auto options = quickOptions();
  options.requestTimeout = std::chrono::milliseconds(250);
  options.maxAttempts = 2;
  redfish::Transport transport(options);
  auto client = transport.client(endpointFor(bmc)).value();
  auto result = client->send(unauthenticatedGet("/redfish/v1/Hang"));
  REQUIRE_FALSE(result.ok());
  CHECK(result.error().code == redfish::codes::kTimeout);
  CHECK(result.error().kind == common::ErrorKind::kTimeout);
  CHECK(bmc.count("GET", "/redfish/v1/Hang") == 2);
}

// Sessions through the real transport against a fixture BMC: one login, token reuse, re-login on
// 401, basic auth fallback, DELETE on close and shutdown, login failures.
#include <catch2/catch.hpp>

#include "redfish/errors.hpp"
#include "redfish/support/fixture_server.hpp"
#include "redfish/support/transport_test_util.hpp"
#include "redfish/transport.hpp"

using namespace transport_test;
using fixture::FixtureConfig;
using fixture::FixtureServer;

TEST_CASE("transport logs in once and reuses the session token for every request",
          "[transport][session]") {
  FixtureServer bmc;
  redfish::Transport transport(quickOptions());
  auto client = transport.client(endpointFor(bmc)).value();
  std::vector<Pending> pending;
  for (int i = 0; i < 10; ++i) pending.push_back(sendAsync(*client, get("/redfish/v1/Systems")));
  for (auto& one : pending) {
    auto result = await(one);
    REQUIRE(result.ok());
    CHECK(result->status == 200);
  }
  CHECK(bmc.logins() == 1);
  CHECK(transport.stats().logins == 1);
  for (const auto& arrival : bmc.arrivals()) {
    if (arrival.path == "/redfish/v1/Systems")
      CHECK(arrival.token == "token-1-" + bmc.baseUrl().substr(bmc.baseUrl().rfind(':') + 1));
    CHECK_FALSE(arrival.basic);
  }
}

TEST_CASE("transport opens one session for 50 concurrent first requests", "[transport][session]") {
  FixtureServer bmc;
  redfish::Transport transport(quickOptions());
  auto client = transport.client(endpointFor(bmc)).value();
  std::vector<Pending> pending;
  for (int i = 0; i < 50; ++i) pending.push_back(sendAsync(*client, get("/redfish/v1/Chassis")));
  for (auto& one : pending) CHECK(codeOf(await(one)) == "ok");
  CHECK(bmc.logins() == 1);
  CHECK(bmc.count("POST", "/redfish/v1/SessionService/Sessions") == 1);
  CHECK(bmc.count("GET", "/redfish/v1") == 1);
}

TEST_CASE("transport re-logs in once after a 401 and retries the request", "[transport][session]") {
  FixtureServer bmc;
  redfish::Transport transport(quickOptions());
  auto client = transport.client(endpointFor(bmc)).value();
  REQUIRE(client->send(get("/redfish/v1/Systems")).ok());
  bmc.expireSessions();
  auto result = client->send(get("/redfish/v1/Systems"));
  REQUIRE(result.ok());
  CHECK(result->status == 200);
  CHECK(bmc.logins() == 2);
  CHECK(bmc.count("GET", "/redfish/v1/Systems") == 3);  // ok, 401, ok after re-login
}

TEST_CASE("transport reports bmc_auth_failed when the fresh session is refused too",
          "[transport][session]") {
  FixtureServer bmc;
  redfish::Transport transport(quickOptions());
  auto client = transport.client(endpointFor(bmc)).value();
  bmc.rejectTokens(true);
  auto result = client->send(get("/redfish/v1/Systems"));
  REQUIRE_FALSE(result.ok());
  CHECK(result.error().code == redfish::codes::kAuthFailed);
  CHECK(result.error().kind == common::ErrorKind::kUnauthenticated);
  CHECK(bmc.logins() == 2);
  CHECK(bmc.count("GET", "/redfish/v1/Systems") == 2);
}

TEST_CASE("transport fails every waiter with bmc_auth_failed when the login is refused",
          "[transport][session]") {
  FixtureServer bmc;
  redfish::Transport transport(quickOptions());
  auto endpoint = endpointFor(bmc);
  endpoint.password = "wrong-password-123";
  auto client = transport.client(endpoint).value();
  std::vector<Pending> pending;
  for (int i = 0; i < 5; ++i) pending.push_back(sendAsync(*client, get("/redfish/v1/Systems")));
  for (auto& one : pending) {
    auto result = await(one);
    REQUIRE_FALSE(result.ok());
    CHECK(result.error().code == redfish::codes::kAuthFailed);
    CHECK(result.error().message.find("wrong-password-123") == std::string::npos);
  }
  CHECK(bmc.count("GET", "/redfish/v1/Systems") == 0);
  CHECK(bmc.count("POST", "/redfish/v1/SessionService/Sessions") == 1);
}

TEST_CASE("transport maps a session-limit login answer to bmc_session_limit",
          "[transport][session]") {
  FixtureServer bmc;
  auto options = quickOptions();
  options.maxAttempts = 1;
  redfish::Transport transport(options);
  fixture::Reply full;
  full.status = 503;
  full.body = R"({"error":{"@Message.ExtendedInfo":[{"MessageId":
      "Base.1.8.SessionLimitExceeded","Message":"No more sessions"}]}})";
  bmc.script("POST", "/redfish/v1/SessionService/Sessions", {full});
  auto client = transport.client(endpointFor(bmc)).value();
  auto result = client->send(get("/redfish/v1/Systems"));
  REQUIRE_FALSE(result.ok());
  CHECK(result.error().code == redfish::codes::kSessionLimit);
  // The next request tries again and succeeds.
  CHECK(client->send(get("/redfish/v1/Systems")).ok());
}

TEST_CASE("transport falls back to basic auth when the root has no SessionService",
          "[transport][session]") {
  FixtureConfig config;
  config.sessions = FixtureConfig::Sessions::kNone;
  FixtureServer bmc(config);
  redfish::Transport transport(quickOptions());
  auto client = transport.client(endpointFor(bmc)).value();
  for (int i = 0; i < 3; ++i) {
    auto result = client->send(get("/redfish/v1/Systems"));
    REQUIRE(result.ok());
    CHECK(result->status == 200);
  }
  CHECK(transport.stats().logins == 0);
  for (const auto& arrival : bmc.arrivals()) {
    if (arrival.path == "/redfish/v1/Systems") CHECK(arrival.basic);
  }
}

TEST_CASE("transport finds Sessions through the SessionService when Links lacks it",
          "[transport][session]") {
  FixtureConfig config;
  config.sessions = FixtureConfig::Sessions::kServiceOnly;
  config.absoluteLocation = true;
  FixtureServer bmc(config);
  redfish::Transport transport(quickOptions());
  auto client = transport.client(endpointFor(bmc)).value();
  auto result = client->send(get("/redfish/v1/Systems"));
  INFO((result ? std::string() : result.error().message));
  REQUIRE(result.ok());
  CHECK(bmc.count("GET", "/redfish/v1/SessionService") == 1);
  CHECK(bmc.logins() == 1);
  REQUIRE(client->close().ok());  // absolute Location works for the DELETE
  CHECK(bmc.sessionDeletes() == 1);
}

TEST_CASE("transport deletes the session on close and logs in again afterwards",
          "[transport][session]") {
  FixtureServer bmc;
  redfish::Transport transport(quickOptions());
  auto client = transport.client(endpointFor(bmc)).value();
  REQUIRE(client->send(get("/redfish/v1/Systems")).ok());
  REQUIRE(bmc.liveSessions() == 1);
  REQUIRE(client->close().ok());
  CHECK(bmc.sessionDeletes() == 1);
  CHECK(bmc.liveSessions() == 0);
  REQUIRE(client->send(get("/redfish/v1/Systems")).ok());
  CHECK(bmc.logins() == 2);
}

TEST_CASE("transport shutdown deletes every open session", "[transport][session]") {
  FixtureServer first;
  FixtureServer second;
  {
    redfish::Transport transport(quickOptions());
    for (auto* bmc : {&first, &second}) {
      auto client = transport.client(endpointFor(*bmc)).value();
      REQUIRE(client->send(get("/redfish/v1/Systems")).ok());
    }
    REQUIRE(first.liveSessions() == 1);
    REQUIRE(second.liveSessions() == 1);
  }  // destructor: shutdown
  CHECK(first.sessionDeletes() == 1);
  CHECK(second.sessionDeletes() == 1);
  CHECK(first.liveSessions() == 0);
  CHECK(second.liveSessions() == 0);
}

TEST_CASE("transport returns the same client for the same normalised URL", "[transport][session]") {
  FixtureServer bmc;
  redfish::Transport transport(quickOptions());
  auto endpoint = endpointFor(bmc);
  auto first = transport.client(endpoint).value();
  endpoint.baseUrl =
      "HTTP://127.0.0.1:" + bmc.baseUrl().substr(bmc.baseUrl().rfind(':') + 1) + "/redfish/v1/";
  auto second = transport.client(endpoint).value();
  CHECK(first.get() == second.get());
  endpoint.baseUrl = "ftp://127.0.0.1";
  auto bad = transport.client(endpoint);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().kind == common::ErrorKind::kInvalidArgument);
}

TEST_CASE("transport assumes SessionService/Sessions when the service needs a session to read",
          "[transport][session]") {
  FixtureConfig config;
  config.sessions = FixtureConfig::Sessions::kServiceOnly;
  FixtureServer bmc(config);
  fixture::Reply denied;
  denied.status = 401;
  bmc.script("GET", "/redfish/v1/SessionService", {denied});
  redfish::Transport transport(quickOptions());
  auto client = transport.client(endpointFor(bmc)).value();
  REQUIRE(client->send(get("/redfish/v1/Systems")).ok());
  CHECK(bmc.logins() == 1);
}

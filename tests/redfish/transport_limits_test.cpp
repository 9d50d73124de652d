// Concurrency limits, fairness, cancellation, connection reuse and the body cap.
#include <catch2/catch.hpp>

#include "redfish/errors.hpp"
#include "redfish/support/fixture_server.hpp"
#include "redfish/support/transport_test_util.hpp"
#include "redfish/transport.hpp"

using namespace transport_test;
using fixture::FixtureConfig;
using fixture::FixtureServer;
using fixture::Reply;

TEST_CASE("transport never exceeds the per-BMC in-flight limit", "[transport][limits]") {
  FixtureConfig config;
  config.slowUntilConcurrent = 2;  // each request is held until two run at once
  FixtureServer bmc(config);
  redfish::Transport transport(quickOptions());  // 2 per BMC by default
  auto client = transport.client(endpointFor(bmc)).value();
  std::vector<Pending> pending;
  for (int i = 0; i < 20; ++i) pending.push_back(sendAsync(*client, get("/redfish/v1/Slow")));
  for (auto& one : pending) CHECK(codeOf(await(one)) == "ok");
  CHECK(bmc.peakConcurrent() == 2);
  CHECK(client->peakInFlight() == 2);
  CHECK(bmc.count("GET", "/redfish/v1/Slow") == 20);
}

TEST_CASE("transport respects the global in-flight limit across BMCs", "[transport][limits]") {
  auto shared = std::make_shared<fixture::ConcurrencyGauge>();
  std::vector<std::unique_ptr<FixtureServer>> bmcs;
  for (int i = 0; i < 4; ++i) {
    FixtureConfig config;
    config.slowUntilConcurrent = 3;
    config.sharedGauge = shared;
    bmcs.push_back(std::make_unique<FixtureServer>(config));
  }
  auto options = quickOptions();
  options.maxInFlightPerBmc = 4;
  options.maxInFlightTotal = 3;
  redfish::Transport transport(options);
  std::vector<Pending> pending;
  for (int round = 0; round < 6; ++round) {
    for (auto& bmc : bmcs) {
      auto client = transport.client(endpointFor(*bmc)).value();
      pending.push_back(sendAsync(*client, get("/redfish/v1/Slow")));
    }
  }
  for (auto& one : pending) CHECK(codeOf(await(one)) == "ok");
  CHECK(shared->peakNow() == 3);
  CHECK(transport.stats().peakInFlight == 3);
  for (auto& bmc : bmcs) CHECK(bmc->count("GET", "/redfish/v1/Slow") == 6);
}

TEST_CASE("transport cancelAll completes queued and in-flight requests with bmc_cancelled",
          "[transport][limits]") {
  FixtureServer bmc;
  Reply held;
  held.hold = true;
  bmc.script("GET", "/redfish/v1/Hang", {held, held});
  redfish::Transport transport(quickOptions());
  auto client = transport.client(endpointFor(bmc)).value();
  REQUIRE(client->send(get("/redfish/v1/Systems")).ok());  // session open
  std::vector<Pending> pending;
  for (int i = 0; i < 6; ++i) pending.push_back(sendAsync(*client, get("/redfish/v1/Hang")));
  // Wait until both slots hold a request at the server, then cancel.
  auto deadline = std::chrono::steady_clock::now() + kDeadline;
  while (bmc.count("GET", "/redfish/v1/Hang") < 2 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::yield();
  }
  REQUIRE(bmc.count("GET", "/redfish/v1/Hang") == 2);
  client->cancelAll();
  for (auto& one : pending) CHECK(codeOf(await(one)) == std::string(redfish::codes::kCancelled));
  bmc.releaseHeld();
  CHECK(client->send(get("/redfish/v1/Systems")).ok());  // still usable afterwards
}

TEST_CASE("transport shutdown cancels pending work and later requests", "[transport][limits]") {
  FixtureServer bmc;
  Reply held;
  held.hold = true;
  bmc.script("GET", "/redfish/v1/Hang", {held, held});
  auto options = quickOptions();
  options.closeTimeout = std::chrono::milliseconds(500);
  redfish::Transport transport(options);
  auto client = transport.client(endpointFor(bmc)).value();
  std::vector<Pending> pending;
  for (int i = 0; i < 5; ++i) pending.push_back(sendAsync(*client, get("/redfish/v1/Hang")));
  transport.shutdown();
  for (auto& one : pending) CHECK(codeOf(await(one)) == std::string(redfish::codes::kCancelled));
  auto late = sendAsync(*client, get("/redfish/v1/Systems"));
  CHECK(codeOf(await(late)) == std::string(redfish::codes::kCancelled));
  bmc.releaseHeld();
}

TEST_CASE("transport reuses connections across requests", "[transport][limits]") {
  FixtureServer bmc;
  redfish::Transport transport(quickOptions());
  auto client = transport.client(endpointFor(bmc)).value();
  for (int i = 0; i < 20; ++i) REQUIRE(client->send(get("/redfish/v1/Systems")).ok());
  auto stats = transport.stats();
  CHECK(stats.attempts == 22);  // root, login, 20 requests
  CHECK(stats.connectionsOpened >= 1);
  CHECK(stats.connectionsOpened <= 2);
}

TEST_CASE("transport refuses a body over the cap as bmc_malformed_response",
          "[transport][limits]") {
  FixtureServer bmc;
  auto options = quickOptions();
  options.maxBodyBytes = 64 * 1024;
  redfish::Transport transport(options);
  auto client = transport.client(endpointFor(bmc)).value();
  auto small = client->send(get("/redfish/v1/Blob?bytes=1000"));
  REQUIRE(small.ok());
  CHECK(small->body.size() == 1000);
  auto big = client->send(get("/redfish/v1/Blob?bytes=200000"));
  REQUIRE_FALSE(big.ok());
  CHECK(big.error().code == redfish::codes::kMalformed);
  CHECK(bmc.count("GET", "/redfish/v1/Blob") == 2);  // not retried
}

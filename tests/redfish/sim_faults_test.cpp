// Every transport and session fault the simulator injects, seen through the real client: what is
// retried, what is not, and the typed error each one ends in.
#include <catch2/catch.hpp>

#include "redfish/crawl.hpp"
#include "redfish/errors.hpp"
#include "redfish/support/sim_fixture.hpp"

namespace {

redfish::Request get(std::string target) {
  redfish::Request request;
  request.target = std::move(target);
  return request;
}

std::uint64_t requestsSeen(const testing::SimFleet& sim) {
  return sim.fleet->stats().requests;
}

}  // namespace

TEST_CASE("A 503 storm is ridden out by retries and the crawl completes", "[redfish][sim]") {
  auto sim = testing::SimFleet::start(testing::oneRack("dell-r750", 1, false));
  sim.patchFaults("r01-n01", {{"http_5xx_rate", 0.3}});
  auto inventory = redfish::crawlInventory(sim.client("r01-n01"));
  REQUIRE(inventory.ok());
  CHECK_FALSE(inventory->firmware.empty());
  auto stats = sim.transport->stats();
  CHECK(stats.retries > 0);
  CHECK(sim.fleet->stats().faults.http5xx == stats.retries);
}

TEST_CASE("When every answer is 503 the retry budget ends in the last 503", "[redfish][sim]") {
  auto options = testing::quickTransportOptions();
  options.maxAttempts = 3;
  auto sim = testing::SimFleet::start(testing::oneRack("dell-r750", 1, false), options);
  sim.patchFaults("r01-n01", {{"http_5xx_rate", 1.0}});
  auto client = sim.client("r01-n01");
  auto root = get("/redfish/v1/");
  root.authenticated = false;
  auto response = client->send(root);
  REQUIRE(response.ok());
  CHECK(response->status == 503);
  CHECK(requestsSeen(sim) == 3);
  auto inventory = redfish::crawlInventory(client);
  REQUIRE_FALSE(inventory.ok());
  CHECK(inventory.error().kind == common::ErrorKind::kUnavailable);
}

TEST_CASE("Malformed JSON from a BMC is a typed protocol error", "[redfish][sim]") {
  auto sim = testing::SimFleet::start(testing::oneRack("dgx-h100", 1, false));
  sim.patchFaults("r01-n01", {{"malformed_rate", 1.0}});
  auto inventory = redfish::crawlInventory(sim.client("r01-n01"));
  REQUIRE_FALSE(inventory.ok());
  CHECK(inventory.error().code == redfish::codes::kMalformed);
  CHECK(inventory.error().kind == common::ErrorKind::kProtocol);
}

TEST_CASE("A BMC that never answers ends in bmc_timeout after the retries", "[redfish][sim]") {
  auto options = testing::quickTransportOptions();
  options.requestTimeout = std::chrono::milliseconds(300);
  options.maxAttempts = 2;
  auto sim = testing::SimFleet::start(testing::oneRack("dell-r750", 1, false), options);
  sim.patchFaults("r01-n01", {{"timeout_rate", 1.0}});
  auto response = sim.client("r01-n01")->send(get("/redfish/v1/"));
  REQUIRE_FALSE(response.ok());
  CHECK(response.error().code == redfish::codes::kTimeout);
  CHECK(sim.fleet->stats().faults.timeouts == 2);
}

TEST_CASE("Connection resets end in bmc_unreachable after the retries", "[redfish][sim]") {
  auto options = testing::quickTransportOptions();
  options.maxAttempts = 3;
  auto sim = testing::SimFleet::start(testing::oneRack("dell-r750", 1, false), options);
  sim.patchFaults("r01-n01", {{"reset_rate", 1.0}});
  auto response = sim.client("r01-n01")->send(get("/redfish/v1/"));
  REQUIRE_FALSE(response.ok());
  CHECK(response.error().code == redfish::codes::kUnreachable);
  CHECK(sim.fleet->stats().faults.resets == 3);
}

TEST_CASE("A BMC whose certificate changed is refused before any request is sent",
          "[redfish][sim]") {
  auto sim = testing::SimFleet::start(testing::oneRack("dell-r750", 1));
  auto original = sim.endpoint("r01-n01").fingerprint;
  sim.patchFaults("r01-n01", {{"certificate_rotated", true}});
  auto endpoint = sim.redfishEndpoint("r01-n01");
  endpoint.tls.mode = redfish::TlsPolicy::Mode::kPinned;
  endpoint.tls.pinnedSha256 = original;
  auto client = sim.transport->client(endpoint);
  REQUIRE(client.ok());
  auto before = requestsSeen(sim);
  auto response = (*client)->send(get("/redfish/v1/Systems"));
  REQUIRE_FALSE(response.ok());
  CHECK(response.error().code == redfish::codes::kPinMismatch);
  CHECK(response.error().message.find(original) != std::string::npos);
  CHECK(requestsSeen(sim) == before);
}

TEST_CASE("A BMC with every session taken gives bmc_session_limit", "[redfish][sim]") {
  auto sim = testing::SimFleet::start(testing::oneRack("dgx-h100", 1, false));
  sim.patchFaults("r01-n01", {{"sessions_exhausted", true}});
  auto response = sim.client("r01-n01")->send(get("/redfish/v1/Systems"));
  REQUIRE_FALSE(response.ok());
  CHECK(response.error().code == redfish::codes::kSessionLimit);
}

TEST_CASE("An expired session is replaced by one re-login and the request succeeds",
          "[redfish][sim]") {
  auto sim = testing::SimFleet::start(testing::oneRack("dell-r750", 1, false));
  auto client = sim.client("r01-n01");
  REQUIRE(client->send(get("/redfish/v1/Systems"))->status == 200);
  CHECK(sim.transport->stats().logins == 1);
  sim.fleet->clock().advance(24 * 3600);  // far past any session timeout
  auto again = client->send(get("/redfish/v1/Systems"));
  REQUIRE(again.ok());
  CHECK(again->status == 200);
  CHECK(sim.transport->stats().logins == 2);
  CHECK(sim.snapshot("r01-n01")["sessions"] == 1);
}

TEST_CASE("Wrong BMC credentials end in bmc_auth_failed without retrying", "[redfish][sim]") {
  auto sim = testing::SimFleet::start(testing::oneRack("dell-r750", 1, false));
  auto endpoint = sim.redfishEndpoint("r01-n01");
  endpoint.password = "not-the-password";
  auto client = sim.transport->client(endpoint);
  REQUIRE(client.ok());
  auto response = (*client)->send(get("/redfish/v1/Systems"));
  REQUIRE_FALSE(response.ok());
  CHECK(response.error().code == redfish::codes::kAuthFailed);
  CHECK(response.error().message.find("not-the-password") == std::string::npos);
  CHECK(sim.transport->stats().logins == 1);
}

TEST_CASE("Closing the client deletes its session on the BMC", "[redfish][sim]") {
  auto sim = testing::SimFleet::start(testing::oneRack("hpe-dl385", 1, false));
  auto client = sim.client("r01-n01");
  REQUIRE(client->send(get("/redfish/v1/Systems"))->status == 200);
  CHECK(sim.snapshot("r01-n01")["sessions"] == 1);
  REQUIRE(client->close().ok());
  CHECK(sim.snapshot("r01-n01")["sessions"] == 0);
}

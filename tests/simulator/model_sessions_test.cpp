// Sessions and authentication.
#include <catch2/catch.hpp>

#include "simulator/faults.hpp"
#include "simulator/support/model_support.hpp"

using namespace modeltest;

namespace {

sim::HttpResponse login(Bmc& bmc, const std::string& password = kCredentials.password) {
  return bmc.send("POST", bmc.behaviour().sessionsPath,
                  {{"UserName", kCredentials.username}, {"Password", password}}, {{"noauth", "1"}});
}

}  // namespace

TEST_CASE("Login returns a token that authenticates and DELETE frees the session") {
  Bmc bmc("dell-r750");
  CHECK(bmc.get("/redfish/v1/Systems", false).status == 401);
  auto created = login(bmc);
  REQUIRE(created.status == 201);
  auto token = headerOf(created, "X-Auth-Token");
  auto location = headerOf(created, "Location");
  CHECK_FALSE(token.empty());
  CHECK(location.starts_with(bmc.behaviour().sessionsPath + "/"));
  CHECK(bmc.send("GET", "/redfish/v1/Systems", nullptr, {{"x-auth-token", token}}).status == 200);
  CHECK(bmc.send("GET", "/redfish/v1/Systems", nullptr, {{"x-auth-token", "bogus"}}).status == 401);
  CHECK(bmc.json(bmc.behaviour().sessionsPath)["Members"].size() == 1);
  CHECK(bmc.send("DELETE", location, nullptr, {{"x-auth-token", token}}).status == 204);
  CHECK(bmc.send("GET", "/redfish/v1/Systems", nullptr, {{"x-auth-token", token}}).status == 401);
}

TEST_CASE("A wrong password is refused without echoing it") {
  Bmc bmc("supermicro-hgx-h100");
  auto refused = login(bmc, "not-the-password");
  CHECK(refused.status == 401);
  CHECK(refused.body.find("not-the-password") == std::string::npos);
  CHECK(headerOf(refused, "X-Auth-Token").empty());
}

TEST_CASE("The session limit answers like the vendor and frees up on delete") {
  Bmc bmc("dell-r750");
  std::vector<std::string> locations;
  for (int i = 0; i < bmc.behaviour().sessionLimit; ++i) {
    auto created = login(bmc);
    REQUIRE(created.status == 201);
    locations.push_back(headerOf(created, "Location"));
  }
  auto refused = login(bmc);
  CHECK(refused.status == 400);
  CHECK(extendedInfo(refused)["MessageId"].get<std::string>().ends_with("SessionLimitExceeded"));
  CHECK(bmc.send("DELETE", locations.front(), nullptr).status == 204);
  CHECK(login(bmc).status == 201);
}

TEST_CASE("Session fault overrides: max sessions and exhausted") {
  Bmc bmc("lenovo-sr670v2");
  sim::BehaviourFaults faults;
  faults.maxSessions = 1;
  bmc.model->setFaults(faults);
  CHECK(login(bmc).status == 201);
  CHECK(login(bmc).status == bmc.behaviour().sessionLimitStatus);
  faults = {};
  faults.sessionsExhausted = true;
  bmc.model->setFaults(faults);
  CHECK(login(bmc).status == bmc.behaviour().sessionLimitStatus);
}

TEST_CASE("Idle sessions expire after SessionTimeout simulated seconds") {
  Bmc bmc("supermicro-hgx-h100");
  auto token = headerOf(login(bmc), "X-Auth-Token");
  auto timeout = bmc.behaviour().sessionTimeoutSeconds;
  bmc.clock.advance(timeout - 5);
  CHECK(bmc.send("GET", "/redfish/v1/Systems", nullptr, {{"x-auth-token", token}}).status == 200);
  bmc.clock.advance(timeout - 5);  // still alive: the request above refreshed it
  CHECK(bmc.send("GET", "/redfish/v1/Systems", nullptr, {{"x-auth-token", token}}).status == 200);
  bmc.clock.advance(timeout + 1);
  CHECK(bmc.send("GET", "/redfish/v1/Systems", nullptr, {{"x-auth-token", token}}).status == 401);
}

TEST_CASE("A session timeout fault replaces the profile's idle timeout") {
  Bmc bmc("dgx-h100");
  const double profile = bmc.behaviour().sessionTimeoutSeconds;  // the DGX's: 30 s
  sim::BehaviourFaults faults;
  faults.sessionTimeoutSeconds = 1800;
  bmc.model->setFaults(faults);
  auto token = headerOf(login(bmc), "X-Auth-Token");
  bmc.clock.advance(profile + 60);  // past the profile's timeout: alive under the override
  CHECK(bmc.send("GET", "/redfish/v1/Systems", nullptr, {{"x-auth-token", token}}).status == 200);
  bmc.clock.advance(1801);
  CHECK(bmc.send("GET", "/redfish/v1/Systems", nullptr, {{"x-auth-token", token}}).status == 401);

  auto parsed = sim::applyFaultsJson({}, nlohmann::json{{"session_timeout_seconds", 0}});
  REQUIRE_FALSE(parsed);
  CHECK(parsed.error().field == "session_timeout_seconds");
  auto set = sim::applyFaultsJson({}, nlohmann::json{{"session_timeout_seconds", 900}});
  REQUIRE(set);
  CHECK(sim::faultsToJson(*set)["session_timeout_seconds"] == 900.0);
  auto cleared = sim::applyFaultsJson(*set, nlohmann::json{{"session_timeout_seconds", nullptr}});
  REQUIRE(cleared);
  CHECK(sim::faultsToJson(*cleared)["session_timeout_seconds"].is_null());
}

TEST_CASE("A password change through AccountService is then required for login") {
  Bmc bmc("dell-r750");
  auto accounts = bmc.json(bmc.behaviour().accountsPath);
  std::string mine;
  for (const auto& member : accounts["Members"]) {
    auto path = member["@odata.id"].get<std::string>();
    if (bmc.json(path)["UserName"] == kCredentials.username) mine = path;
  }
  REQUIRE_FALSE(mine.empty());
  CHECK(bmc.send("PATCH", mine, {{"Password", "N3w-Secret"}}).status == 204);
  CHECK(login(bmc).status == 401);
  CHECK(login(bmc, "N3w-Secret").status == 201);
  CHECK(bmc.get("/redfish/v1/Systems").status == 401);  // Basic with the old password
}

TEST_CASE("Event subscriptions can be created listed and deleted") {
  Bmc bmc("hpe-dl385");
  const auto& path = bmc.behaviour().subscriptionsPath;
  auto before = bmc.json(path)["Members"].size();
  sim::HttpResponse created;
  for (int i = 0; i < 20; ++i) {  // HPE's spurious 401s
    created = bmc.send("POST", path, {{"Destination", "https://10.0.0.1/events"}});
    if (created.status != 401) break;
  }
  REQUIRE(created.status == 201);
  auto location = headerOf(created, "Location");
  CHECK(bmc.json(location)["Destination"] == "https://10.0.0.1/events");
  CHECK(bmc.json(path)["Members"].size() == before + 1);
  sim::HttpResponse deleted;
  for (int i = 0; i < 20; ++i) {
    deleted = bmc.send("DELETE", location, nullptr);
    if (deleted.status != 401) break;
  }
  CHECK(deleted.status == 204);
  CHECK(bmc.json(path)["Members"].size() == before);
}

TEST_CASE("DELETE of an account removes it until the manager is reset to defaults") {
  Bmc bmc("dell-r750");
  const auto& collection = bmc.behaviour().accountsPath;
  std::string mine, other;
  const auto accounts = bmc.json(collection);
  for (const auto& member : accounts["Members"]) {
    auto path = member["@odata.id"].get<std::string>();
    if (bmc.json(path)["UserName"] == kCredentials.username) {
      mine = path;
    } else if (other.empty()) {
      other = path;
    }
  }
  REQUIRE_FALSE(mine.empty());
  REQUIRE_FALSE(other.empty());
  const auto before = accounts["Members"].size();

  CHECK(bmc.send("DELETE", other, nullptr).status == 204);
  CHECK(bmc.get(other).status == 404);
  CHECK(bmc.json(collection)["Members"].size() == before - 1);
  CHECK(bmc.json(collection)["Members@odata.count"] == before - 1);
  CHECK(bmc.send("DELETE", other, nullptr).status == 404);  // gone is gone
  CHECK(bmc.send("PATCH", other, {{"Password", "x"}}).status == 404);
  // The account the session logs in with is in use.
  CHECK(bmc.send("DELETE", mine, nullptr).status == 409);
  CHECK(bmc.get("/redfish/v1/Systems").status == 200);
  CHECK(bmc.send("DELETE", collection + "/no-such-id", nullptr).status == 404);

  const auto& reset = bmc.behaviour().managerResetToDefaultsTarget;
  REQUIRE_FALSE(reset.empty());
  CHECK(bmc.send("POST", reset, {{"ResetType", "ResetAll"}}).status == 204);
  CHECK(bmc.get(other).status == 200);
  CHECK(bmc.json(collection)["Members"].size() == before);
}

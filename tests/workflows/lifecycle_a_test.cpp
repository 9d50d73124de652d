// The first lifecycle steps against the BMC simulator and a real database: match, claim,
// inspect, handoff and quarantine, each called directly (the engine is tested on its own).
#include <cctype>

#include <catch2/catch.hpp>

#include "inventory/bmc_credentials.hpp"
#include "inventory/nodes.hpp"
#include "redfish/accounts.hpp"
#include "redfish/errors.hpp"
#include "workflows/lifecycle_fixture.hpp"

namespace {

using lifecycle_test::drive;
using lifecycle_test::FixtureOptions;
using lifecycle_test::LifecycleFixture;
using workflows::StepContext;
using workflows::StepOutcome;
using Kind = workflows::StepOutcome::Kind;
namespace lc = workflows::lifecycle;

#define REQUIRE_OUTCOME(driven, expected_kind)         \
  do {                                                 \
    INFO(lifecycle_test::describe((driven).outcome));  \
    REQUIRE((driven).outcome.kind == (expected_kind)); \
  } while (false)

inventory::Id matched(LifecycleFixture& f, StepContext& ctx) {
  auto m = drive(lc::matchStep, f.env, ctx);
  REQUIRE_OUTCOME(m, Kind::kNext);
  REQUIRE(ctx.run().node_id);
  return *ctx.run().node_id;
}

// A GET of the Systems collection through a transport of its own with these credentials.
common::Result<redfish::Response> getSystems(const sim::BmcEndpoint& bmc, const std::string& user,
                                             const std::string& password) {
  redfish::Transport transport;
  redfish::BmcEndpoint endpoint;
  endpoint.baseUrl = bmc.baseUrl;
  endpoint.username = user;
  endpoint.password = password;
  auto client = transport.client(endpoint);
  if (!client) return common::fail(client.error());
  redfish::Request request;
  request.target = "/redfish/v1/Systems";
  return (*client)->send(std::move(request));
}

// The simulator reports MACs upper-case; the inventory keeps them normalised.
std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

TEST_CASE("Match creates the ordered node in its rack and is idempotent", "[lifecycle][match]") {
  LifecycleFixture f;
  auto ctx = f.context(1);
  auto first = drive(lc::matchStep, f.env, ctx);
  REQUIRE_OUTCOME(first, Kind::kNext);
  CHECK(first.outcome.step == "admit");
  auto node = inventory::getNode(*f.db, *ctx.run().node_id);
  REQUIRE(node.ok());
  CHECK(node->chassis_serial == f.bmc(1).identity.chassisSerial);
  CHECK(node->bmc_mac == lower(f.bmc(1).identity.bmcMac));
  CHECK(node->hardware_model == f.bmc(1).identity.model);
  CHECK(node->state == "matched");
  CHECK(node->rack == "r01");
  CHECK(node->site == "dc1");
  CHECK(node->u_position == 2);
  CHECK(ctx.run().rack == "r01");
  CHECK(ctx.data()["expected"]["po"] == f.po_number);
  CHECK(ctx.data()["expected"]["gpu_count"] == 8);

  auto again = drive(lc::matchStep, f.env, ctx);  // a resumed run finds the node it created
  REQUIRE_OUTCOME(again, Kind::kNext);
  CHECK(*ctx.run().node_id == node->id);
  CHECK(f.scalar("SELECT count(*) FROM nodes") == "1");
}

TEST_CASE("Match quarantines a chassis whose serial is not the ordered one", "[lifecycle][match]") {
  LifecycleFixture f;
  const auto ordered = f.bmc(1).identity.chassisSerial;
  f.patchFaults(1, {{"chassis_serial", "WRONG123"}});
  auto ctx = f.context(1);
  auto m = drive(lc::matchStep, f.env, ctx);
  REQUIRE_OUTCOME(m, Kind::kFail);
  CHECK(m.outcome.reason == "serial_mismatch");
  CHECK(m.outcome.detail["expected_serial"] == ordered);
  CHECK(m.outcome.detail["reported_serial"] == "WRONG123");
  CHECK(m.outcome.detail["bmc_mac"] == lower(f.bmc(1).identity.bmcMac));
  CHECK(m.outcome.detail["po"] == f.po_number);
  REQUIRE(ctx.run().node_id);
  auto node = inventory::getNode(*f.db, *ctx.run().node_id);
  REQUIRE(node.ok());
  CHECK(node->chassis_serial == "WRONG123");
  CHECK(node->state == "quarantined");
}

TEST_CASE("Match flags a BMC that no purchase order lists", "[lifecycle][match]") {
  FixtureOptions options;
  options.unordered = {2};
  LifecycleFixture f(options);
  // Unknown to every order, so only the configured default login can reach it.
  f.env.settings.default_factory_credentials =
      workflows::FactoryCredentials{f.bmc(2).credentials.username, f.bmc(2).credentials.password};
  auto ctx = f.context(2);
  auto m = drive(lc::matchStep, f.env, ctx);
  REQUIRE_OUTCOME(m, Kind::kFail);
  CHECK(m.outcome.reason == "unexpected_hardware");
  CHECK(m.outcome.message.find(f.bmc(2).identity.chassisSerial) != std::string::npos);
  CHECK(m.outcome.message.find(lower(f.bmc(2).identity.bmcMac)) != std::string::npos);
  auto node = inventory::getNode(*f.db, *ctx.run().node_id);
  REQUIRE(node.ok());
  CHECK(node->state == "quarantined");
  CHECK_FALSE(node->rack_id);
}

TEST_CASE("Claim replaces the factory BMC password with a per-node secret", "[lifecycle][claim]") {
  LifecycleFixture f;
  auto ctx = f.context(1);
  auto node = matched(f, ctx);
  auto c = drive(lc::claimStep, f.env, ctx);
  REQUIRE_OUTCOME(c, Kind::kNext);
  CHECK(c.outcome.step == "inspect");

  auto creds = inventory::bmcCredentials(*f.db, *f.secrets, node);
  REQUIRE(creds.ok());
  REQUIRE(creds->has_value());
  const auto& secret = (*creds)->password;
  CHECK_FALSE((*creds)->pending);
  CHECK((*creds)->rotated_at);
  CHECK(secret.size() == 20);  // the DGX AccountService takes at most 20
  CHECK(secret != f.bmc(1).credentials.password);

  auto factory = getSystems(f.bmc(1), "root", f.bmc(1).credentials.password);
  REQUIRE_FALSE(factory.ok());
  CHECK(factory.error().code == redfish::codes::kAuthFailed);
  auto fresh = getSystems(f.bmc(1), "root", secret);
  REQUIRE(fresh.ok());
  CHECK(fresh->status == 200);

  bool rotated_event = false;
  for (const auto& e : c.events) {
    rotated_event = rotated_event || e.kind == "bmc_password_rotated";
    CHECK(e.message.find(secret) == std::string::npos);
    CHECK(e.detail.dump().find(secret) == std::string::npos);
  }
  CHECK(rotated_event);
  CHECK(c.outcome.message.find(secret) == std::string::npos);
  CHECK(ctx.data().dump().find(secret) == std::string::npos);
  CHECK(inventory::getNode(*f.db, node)->state == "claimed");
}

TEST_CASE("Claim resumed after the BMC took the pending password commits it",
          "[lifecycle][claim]") {
  LifecycleFixture f;
  auto ctx = f.context(1);
  auto node = matched(f, ctx);
  const std::string factory = f.bmc(1).credentials.password;
  const std::string pending = "Pending-Secret-2026x";
  // A crash after the BMC was told but before the claim recorded it.
  REQUIRE(
      inventory::recordPendingBmcPassword(*f.db, *f.secrets, node, "root", factory, pending).ok());
  {
    redfish::Transport side;
    redfish::BmcEndpoint endpoint{f.bmc(1).baseUrl, "root", factory, {}, {}};
    auto client = side.client(endpoint);
    REQUIRE(client.ok());
    REQUIRE(redfish::changeAccountPassword(**client, "root", pending).ok());
  }
  auto c = drive(lc::claimStep, f.env, ctx);
  REQUIRE_OUTCOME(c, Kind::kNext);
  auto creds = inventory::bmcCredentials(*f.db, *f.secrets, node);
  REQUIRE(creds.ok());
  CHECK((*creds)->password == pending);
  CHECK_FALSE((*creds)->pending);
  CHECK(getSystems(f.bmc(1), "root", pending).ok());
}

TEST_CASE("Claim resumed with a pending password the BMC never got sets it", "[lifecycle][claim]") {
  LifecycleFixture f;
  auto ctx = f.context(1);
  auto node = matched(f, ctx);
  const std::string pending = "Never-Told-Secret-77";
  REQUIRE(inventory::recordPendingBmcPassword(*f.db, *f.secrets, node, "root",
                                              f.bmc(1).credentials.password, pending)
              .ok());
  auto c = drive(lc::claimStep, f.env, ctx);
  REQUIRE_OUTCOME(c, Kind::kNext);
  auto creds = inventory::bmcCredentials(*f.db, *f.secrets, node);
  REQUIRE(creds.ok());
  CHECK((*creds)->password == pending);
  auto works = getSystems(f.bmc(1), "root", pending);
  REQUIRE(works.ok());
  CHECK(works->status == 200);
}

TEST_CASE("Claim retries while every BMC session is taken", "[lifecycle][claim]") {
  LifecycleFixture f;
  auto ctx = f.context(1);
  matched(f, ctx);
  f.patchFaults(1, {{"sessions_exhausted", true}});
  auto c = drive(lc::claimStep, f.env, ctx);
  REQUIRE_OUTCOME(c, Kind::kRetry);
  CHECK(c.outcome.reason == redfish::codes::kSessionLimit);
  f.patchFaults(1, {{"sessions_exhausted", false}});
  auto again = drive(lc::claimStep, f.env, ctx);
  REQUIRE_OUTCOME(again, Kind::kNext);
}

// Creating campaigns over HTTP with a real PostgreSQL: the plan preview on nodes seeded across
// racks (canary first, wave sizes, spread over racks, components from -> to, estimates under the
// caps), every bad input a 4xx naming the field with nothing stored, one running campaign per
// node, and the audit trail.
#include <catch2/catch.hpp>

#include <pqxx/pqxx>

#include "integration/image_test_support.hpp"
#include "inventory/images.hpp"
#include "inventory/nodes.hpp"
#include "inventory/sites.hpp"
#include "support/service_fixture.hpp"

using nlohmann::json;
using testing::ServiceFixture;

namespace {

long long scalar(ServiceFixture& svc, const std::string& sql) {
  pqxx::connection c(svc.databaseUrl());
  pqxx::nontransaction w(c);
  return w.exec1(sql)[0].as<long long>();
}

struct Stored {
  long long campaigns, nodes, events;
  bool operator==(const Stored&) const = default;
};

Stored stored(ServiceFixture& svc) {
  return {scalar(svc, "SELECT count(*) FROM campaigns"),
          scalar(svc, "SELECT count(*) FROM campaign_nodes"),
          scalar(svc, "SELECT count(*) FROM campaign_events")};
}

// Site dc1 with racks R01..R03 of three ready DGX H100 nodes each (serials R0<rack>-<n>), and
// one quarantined node in R01 that a rollout leaves alone.
std::vector<inventory::Id> seedFleet(ServiceFixture& svc) {
  REQUIRE(inventory::createSite(svc.db(), "dc1", ""));
  std::vector<inventory::Id> ids;
  for (int rack = 1; rack <= 3; ++rack) {
    const std::string name = "R0" + std::to_string(rack);
    auto r = inventory::createRack(svc.db(), inventory::RackSpec{"dc1", "", "", name, 42});
    REQUIRE(r);
    for (int n = 1; n <= (rack == 1 ? 4 : 3); ++n) {
      inventory::NodeSpec spec;
      spec.chassis_serial = name + "-" + std::to_string(n);
      spec.hardware_model = "DGX H100";
      spec.rack_id = r->id;
      spec.u_position = n * 4;
      spec.state = n == 4 ? "quarantined" : "ready";
      auto node = inventory::createNode(svc.db(), spec, "test");
      REQUIRE(node);
      if (n != 4) ids.push_back(node->id);
    }
  }
  return ids;
}

// Image ubuntu 24.04.1 served by channel "prod" to the DGX H100 profile, and 24.04.2 registered.
void seedImages(ServiceFixture& svc) {
  REQUIRE(testing::registerImage(svc, testing::makeImage("ubuntu", "24.04.1")) == 201);
  REQUIRE(testing::registerImage(svc, testing::makeImage("ubuntu", "24.04.2")) == 201);
  REQUIRE(inventory::promoteChannel(svc.db(), "prod", {"ubuntu", "24.04.1"}, "test", "first"));
  inventory::HardwareProfile profile;
  profile.name = "dgx-h100";
  profile.model = "DGX H100";
  profile.channel = "prod";
  REQUIRE(inventory::upsertHardwareProfile(svc.db(), profile, "test"));
}

json imageCampaign(const std::string& name) {
  return {{"name", name},
          {"kind", "image"},
          {"image", {{"name", "ubuntu"}, {"version", "24.04.2"}, {"channel", "prod"}}},
          {"selector", {{"site", "dc1"}}},
          {"canary", {{"count", 2}}},
          {"bake_seconds", 600},
          {"waves", json::array({50, "rest"})},
          {"caps", {{"global", 4}, {"per_rack", 1}}},
          {"failure_budget", {{"count", 1}}}};
}

}  // namespace

TEST_CASE("campaign create answers a draft with its plan: canary first, waves across racks",
          "[integration][api][campaigns]") {
  ServiceFixture svc;
  const auto fleet = seedFleet(svc);
  seedImages(svc);

  auto created =
      svc.sendJson("POST", "/api/v1/campaigns", imageCampaign("ubuntu-24-04-2"), "operator");
  INFO(created.body);
  REQUIRE(created.status == 201);
  const auto c = created.json();
  CHECK(c["state"] == "draft");
  CHECK(c["kind"] == "image");
  CHECK(c["image"]["version"] == "24.04.2");
  CHECK(c["node_count"] == 9);  // the quarantined node is not selected (state ready by default)
  CHECK(c["created_by"] == "test-operator");
  CHECK(c["spec"]["caps"]["per_rack"] == 1);

  const auto plan = c["plan"];
  const auto nodes = plan["nodes"];
  REQUIRE(nodes.size() == 9);
  std::vector<int> wave_sizes(3, 0);
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    CHECK(nodes[i]["position"] == static_cast<int>(i));
    ++wave_sizes.at(nodes[i]["wave"].get<int>());
    REQUIRE(nodes[i]["components"].size() == 1);
    CHECK(nodes[i]["components"][0]["component"] == "image");
    CHECK(nodes[i]["components"][0]["from"] == "ubuntu 24.04.1");
    CHECK(nodes[i]["components"][0]["to"] == "ubuntu 24.04.2");
    CHECK(nodes[i]["estimated_seconds"] == 1200);
    CHECK(nodes[i]["site"] == "dc1");
  }
  // Canary of 2, then 50% of the 7 left (rounded up), then the rest.
  CHECK(wave_sizes == std::vector<int>{2, 4, 3});
  // The canary comes from two racks, and the plan goes round the racks.
  CHECK(nodes[0]["wave"] == 0);
  CHECK(nodes[0]["rack"] != nodes[1]["rack"]);
  for (std::size_t i = 3; i < nodes.size(); ++i) CHECK(nodes[i]["rack"] == nodes[i - 3]["rack"]);

  // One node at a time per rack: the canary (2 racks) takes one round, wave 1 (4 nodes over 3
  // racks) two, wave 2 (3 racks) one; a bake follows each wave but the last.
  const auto waves = plan["waves"];
  REQUIRE(waves.size() == 3);
  CHECK(waves[0]["nodes"] == 2);
  CHECK(waves[0]["estimated_seconds"] == 1200);
  CHECK(waves[0]["bake_seconds"] == 600);
  CHECK(waves[1]["estimated_seconds"] == 2400);
  CHECK(waves[1]["node_seconds"] == 4800);
  CHECK(waves[2]["estimated_seconds"] == 1200);
  CHECK(waves[2]["bake_seconds"] == 0);
  CHECK(plan["estimated_duration_seconds"] == 1200 + 600 + 2400 + 600 + 1200);

  // The preview reads the same later, for any role.
  auto again =
      svc.get("/api/v1/campaigns/" + std::to_string(c["id"].get<int>()) + "/plan", "viewer");
  REQUIRE(again.status == 200);
  CHECK(again.json()["nodes"] == plan["nodes"]);
  CHECK(again.json()["estimated_duration_seconds"] == plan["estimated_duration_seconds"]);
  CHECK(stored(svc) == Stored{1, 9, 1});
  CHECK(scalar(svc,
               "SELECT count(*) FROM audit_log WHERE path = '/api/v1/campaigns'"
               " AND action = 'campaigns.create' AND outcome = 'success'") == 1);
  (void)fleet;
}

TEST_CASE("campaign create refuses every bad input naming the field, and stores nothing",
          "[integration][api][campaigns]") {
  ServiceFixture svc;
  const auto fleet = seedFleet(svc);
  seedImages(svc);
  REQUIRE(svc.sendJson("POST", "/api/v1/campaigns", imageCampaign("taken"), "operator").status ==
          201);
  const Stored before = stored(svc);

  struct Case {
    const char* what;
    json body;
    int status;
    std::string field;
  };
  auto with = [](const std::string& pointer, json value) {
    json body = imageCampaign("bad");
    body[json::json_pointer(pointer)] = std::move(value);
    return body;
  };
  json overlapping =
      with("/windows",
           json::array(
               {{{"days", {"sat"}}, {"start", "22:00"}, {"end", "23:00"}, {"time_zone", "UTC"}},
                {{"days", {"sat"}}, {"start", "22:30"}, {"end", "23:30"}, {"time_zone", "UTC"}}}));
  json firmware = imageCampaign("bad");
  firmware.erase("image");
  firmware["kind"] = "firmware";
  firmware["baseline"] = {{"name", "no-such-baseline"}, {"revision", 1}};
  json no_caps = imageCampaign("bad");
  no_caps.erase("caps");
  const std::vector<Case> cases = {
      {"a selector picking no node", with("/selector", {{"site", "nowhere"}}), 422, "selector"},
      {"no node in that state", with("/selector", {{"rack", "R01"}, {"state", "discovered"}}), 422,
       "selector"},
      {"an unknown explicit node", with("/selector", {{"nodes", {999999}}}), 422,
       "selector.nodes[0]"},
      {"a global cap of 0", with("/caps/global", 0), 400, "caps.global"},
      {"a per-rack cap of 0", with("/caps/per_rack", 0), 400, "caps.per_rack"},
      {"a label cap of 0", with("/caps/per_label", {{"pdu", 0}}), 400, "caps.per_label.pdu"},
      {"no caps", no_caps, 400, "caps"},
      {"a negative wave", with("/waves", json::array({-10, "rest"})), 400, "waves[0]"},
      {"a negative canary", with("/canary", {{"count", -1}}), 400, "canary.count"},
      {"a negative bake time", with("/bake_seconds", -5), 400, "bake_seconds"},
      {"overlapping windows", overlapping, 400, "windows[1]"},
      {"an unknown time zone",
       with("/windows", json::array({{{"days", {"sun"}},
                                      {"start", "01:00"},
                                      {"end", "02:00"},
                                      {"time_zone", "Mars/Olympus"}}})),
       400, "windows[0].time_zone"},
      {"an unknown baseline", firmware, 422, "baseline"},
      {"an unknown image version", with("/image/version", "99.99"), 422, "image"},
      {"an unknown kind", with("/kind", "bios"), 400, "kind"},
      {"a duplicate name", imageCampaign("taken"), 409, "name"},
  };
  for (const auto& c : cases) {
    INFO(c.what);
    auto r = svc.sendJson("POST", "/api/v1/campaigns", c.body, "operator");
    INFO(r.body);
    CHECK(r.status == c.status);
    CHECK(r.json()["field"] == c.field);
  }
  CHECK(svc.send("POST", "/api/v1/campaigns", "{not json", "operator").status == 400);
  CHECK(svc.sendJson("POST", "/api/v1/campaigns", imageCampaign("viewer"), "viewer").status == 403);
  CHECK(stored(svc) == before);
  CHECK(scalar(svc,
               "SELECT count(*) FROM audit_log WHERE path = '/api/v1/campaigns'"
               " AND outcome = 'campaign_selects_nothing'") == 2);
  (void)fleet;
}

TEST_CASE("campaign create refuses a node that is in another running campaign",
          "[integration][api][campaigns]") {
  ServiceFixture svc(testing::withEngine());
  const auto fleet = seedFleet(svc);
  seedImages(svc);
  auto first = svc.sendJson("POST", "/api/v1/campaigns", imageCampaign("first"), "operator");
  REQUIRE(first.status == 201);
  const int first_id = first.json()["id"];
  REQUIRE(svc.sendJson("POST", "/api/v1/campaigns/" + std::to_string(first_id) + "/start",
                       json::object(), "operator")
              .status == 200);
  const Stored before = stored(svc);

  json second = imageCampaign("second");
  second["selector"] = {{"nodes", {fleet[4]}}};
  auto refused = svc.sendJson("POST", "/api/v1/campaigns", second, "operator");
  CHECK(refused.status == 409);
  CHECK(refused.json()["code"] == "node_in_other_campaign");
  const std::string detail = refused.json()["detail"];
  CHECK(detail.find("node " + std::to_string(fleet[4])) != std::string::npos);
  CHECK(detail.find("campaign " + std::to_string(first_id) + " (first)") != std::string::npos);
  CHECK(stored(svc) == before);
}

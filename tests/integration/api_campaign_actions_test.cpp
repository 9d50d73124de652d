// Campaign actions and reads over HTTP with a real Engine and PostgreSQL: the state machine
// (409 naming the state), the controller run that start/resume/rollback make go, one running
// campaign per node, progress and failures, node and event listings, roles and the audit trail.
// Campaigns are seeded through the inventory here; creation over HTTP is api_campaigns_test.
#include <catch2/catch.hpp>

#include <pqxx/pqxx>

#include "inventory/campaigns.hpp"
#include "inventory/nodes.hpp"
#include "inventory/sites.hpp"
#include "inventory/workflow_runs.hpp"
#include "support/service_fixture.hpp"

using nlohmann::json;
using testing::ServiceFixture;

namespace {

std::vector<inventory::Id> seedNodes(ServiceFixture& svc, int n, const std::string& prefix) {
  std::vector<inventory::Id> ids;
  for (int i = 1; i <= n; ++i) {
    inventory::NodeSpec spec;
    spec.chassis_serial = prefix + std::to_string(i);
    spec.hardware_model = "DGX H100";
    spec.state = "ready";
    auto node = inventory::createNode(svc.db(), spec, "test");
    REQUIRE(node);
    ids.push_back(node->id);
  }
  return ids;
}

inventory::Id seedCampaign(ServiceFixture& svc, const std::string& name,
                           const std::vector<inventory::Id>& nodes) {
  inventory::NewCampaign c;
  c.name = name;
  c.kind = "image";
  c.spec_json = R"({"name":")" + name + R"("})";
  c.image_name = "ubuntu";
  c.image_version = "24.04.2";
  c.created_by = "test";
  c.now = std::chrono::system_clock::now();
  int position = 0;
  for (auto id : nodes) {
    inventory::PlannedCampaignNode n;
    n.node_id = id;
    n.wave = position == 0 ? 0 : 1;
    n.position = position++;
    n.estimated_seconds = 1200;
    c.nodes.push_back(n);
  }
  auto created = inventory::createCampaign(svc.db(), c);
  REQUIRE(created);
  return created->id;
}

std::string path(inventory::Id id, const std::string& tail = "") {
  return "/api/v1/campaigns/" + std::to_string(id) + (tail.empty() ? "" : "/" + tail);
}

long long scalar(ServiceFixture& svc, const std::string& sql) {
  pqxx::connection c(svc.databaseUrl());
  pqxx::nontransaction w(c);
  return w.exec1(sql)[0].as<long long>();
}

long long auditCount(ServiceFixture& svc, const std::string& audited_path,
                     const std::string& outcome) {
  pqxx::connection c(svc.databaseUrl());
  pqxx::nontransaction w(c);
  return w
      .exec_params1(
          "SELECT count(*) FROM audit_log WHERE path = $1 AND actor = 'test-operator'"
          " AND outcome = $2",
          audited_path, outcome)[0]
      .as<long long>();
}

std::optional<inventory::WorkflowRun> controllerRun(ServiceFixture& svc, inventory::Id id) {
  auto run = inventory::latestRunForSubject(svc.db(), "firmware_campaign",
                                            "campaign:" + std::to_string(id));
  REQUIRE(run);
  return *run;
}

}  // namespace

TEST_CASE("campaign actions follow the state machine and start the controller run",
          "[integration][api][campaigns]") {
  ServiceFixture svc(testing::withEngine());
  const auto nodes = seedNodes(svc, 3, "CA-");
  const auto id = seedCampaign(svc, "image-roll", nodes);

  auto pause_draft = svc.sendJson("POST", path(id, "pause"), json::object(), "operator");
  CHECK(pause_draft.status == 409);
  CHECK(pause_draft.json()["code"] == "campaign_state");
  CHECK(pause_draft.json()["detail"].get<std::string>().find("draft") != std::string::npos);
  CHECK(auditCount(svc, path(id, "pause"), "campaign_state") == 1);
  CHECK_FALSE(controllerRun(svc, id).has_value());

  CHECK(svc.sendJson("POST", path(id, "start"), json::object(), "viewer").status == 403);

  auto started = svc.sendJson("POST", path(id, "start"), json::object(), "operator");
  REQUIRE(started.status == 200);
  CHECK(started.json()["state"] == "running");
  CHECK(started.json()["started_at"].is_string());
  CHECK(auditCount(svc, path(id, "start"), "success") == 1);
  auto run = controllerRun(svc, id);
  REQUIRE(run.has_value());
  CHECK(run->state == "running");
  CHECK(run->kind == "firmware_campaign");
  CHECK(json::parse(run->context_json)["campaign_id"] == id);
  const auto wakeups = run->wakeups;

  auto again = svc.sendJson("POST", path(id, "start"), json::object(), "operator");
  CHECK(again.status == 409);
  CHECK(again.json()["code"] == "campaign_state");
  CHECK(again.json()["detail"].get<std::string>().find("running") != std::string::npos);

  auto paused =
      svc.sendJson("POST", path(id, "pause"), {{"reason", "rack R07 maintenance"}}, "operator");
  REQUIRE(paused.status == 200);
  CHECK(paused.json()["state"] == "paused");
  CHECK(paused.json()["pause_reason"] == "rack R07 maintenance");

  auto resumed = svc.sendJson("POST", path(id, "resume"), json::object(), "operator");
  REQUIRE(resumed.status == 200);
  CHECK(resumed.json()["state"] == "running");
  CHECK(resumed.json()["pause_reason"].is_null());
  // The same controller run, woken by the pause and the resume rather than started again.
  auto after = controllerRun(svc, id);
  REQUIRE(after.has_value());
  CHECK(after->id == run->id);
  CHECK(after->wakeups >= wakeups + 2);
  CHECK(scalar(svc, "SELECT count(*) FROM workflow_runs WHERE kind = 'firmware_campaign'") == 1);

  auto rollback =
      svc.sendJson("POST", path(id, "rollback"), {{"reason", "bad GPU firmware"}}, "operator");
  REQUIRE(rollback.status == 200);
  CHECK(rollback.json()["state"] == "running");
  CHECK(rollback.json()["rollback_requested"] == true);

  auto cancelled = svc.sendJson("POST", path(id, "cancel"), json::object(), "operator");
  REQUIRE(cancelled.status == 200);
  CHECK(cancelled.json()["state"] == "cancelled");
  CHECK(cancelled.json()["finished_at"].is_string());
  CHECK(cancelled.json()["totals"]["cancelled"] == 3);
  CHECK(svc.sendJson("POST", path(id, "resume"), json::object(), "operator").status == 409);

  auto events = svc.get(path(id, "events"), "viewer");
  REQUIRE(events.status == 200);
  std::vector<std::string> kinds;
  const json items = events.json()["items"];  // json() parses anew: keep one copy
  for (const auto& e : items) kinds.push_back(e["kind"]);
  CHECK(kinds == std::vector<std::string>{"created", "started", "paused", "resumed",
                                          "rollback_requested", "cancelled"});
  CHECK(events.json()["items"][2]["actor"] == "test-operator");
  CHECK(events.json()["items"][2]["message"].get<std::string>().find("rack R07 maintenance") !=
        std::string::npos);

  CHECK(svc.sendJson("POST", path(999, "start"), json::object(), "operator").status == 404);
}

TEST_CASE("a node is in at most one running campaign", "[integration][api][campaigns]") {
  ServiceFixture svc(testing::withEngine());
  const auto nodes = seedNodes(svc, 2, "CB-");
  const auto first = seedCampaign(svc, "first", nodes);
  const auto second = seedCampaign(svc, "second", {nodes[1]});
  REQUIRE(svc.sendJson("POST", path(first, "start"), json::object(), "operator").status == 200);

  auto refused = svc.sendJson("POST", path(second, "start"), json::object(), "operator");
  CHECK(refused.status == 409);
  CHECK(refused.json()["code"] == "node_in_other_campaign");
  const std::string detail = refused.json()["detail"];
  CHECK(detail.find("node " + std::to_string(nodes[1])) != std::string::npos);
  CHECK(detail.find("CB-2") != std::string::npos);
  CHECK(detail.find("campaign " + std::to_string(first) + " (first)") != std::string::npos);
  CHECK(svc.get(path(second), "viewer").json()["state"] == "draft");
  CHECK_FALSE(controllerRun(svc, second).has_value());
}

TEST_CASE("without a workflow engine a campaign does not start", "[integration][api][campaigns]") {
  ServiceFixture svc;
  const auto id = seedCampaign(svc, "no-engine", seedNodes(svc, 1, "CC-"));
  auto refused = svc.sendJson("POST", path(id, "start"), json::object(), "operator");
  CHECK(refused.status == 503);
  CHECK(refused.json()["code"] == "workflows_disabled");
  CHECK(svc.get(path(id), "viewer").json()["state"] == "draft");
  // A draft can still be cancelled: nothing needs the controller for that.
  CHECK(svc.sendJson("POST", path(id, "cancel"), json::object(), "operator").status == 200);
}

TEST_CASE("campaign reads: progress per wave, failures with reasons, nodes by wave and state",
          "[integration][api][campaigns]") {
  ServiceFixture svc(testing::withEngine());
  const auto nodes = seedNodes(svc, 4, "CD-");
  const auto id = seedCampaign(svc, "reads", nodes);
  const auto now = std::chrono::system_clock::now();
  REQUIRE(inventory::updateCampaignNode(
      svc.db(), {id, nodes[0], "succeeded", "", "{}", std::nullopt, "controller", now}));
  REQUIRE(inventory::updateCampaignNode(
      svc.db(), {id, nodes[1], "failed", "version_unchanged",
                 R"({"component":"gpu","version":"1.0"})", std::nullopt, "controller", now}));
  REQUIRE(inventory::updateCampaignNode(
      svc.db(), {id, nodes[2], "running", "", "{}", std::nullopt, "controller", now}));

  auto got = svc.get(path(id), "viewer");
  REQUIRE(got.status == 200);
  const auto c = got.json();
  CHECK(c["name"] == "reads");
  CHECK(c["node_count"] == 4);
  REQUIRE(c["progress"].size() == 2);
  CHECK(c["progress"][0]["wave"] == 0);
  CHECK(c["progress"][0]["by_state"]["succeeded"] == 1);
  CHECK(c["progress"][1]["total"] == 3);
  CHECK(c["progress"][1]["by_state"]["failed"] == 1);
  CHECK(c["progress"][1]["by_state"]["running"] == 1);
  CHECK(c["progress"][1]["by_state"]["pending"] == 1);
  REQUIRE(c["failures"].size() == 1);
  CHECK(c["failures"][0]["serial"] == "CD-2");
  CHECK(c["failures"][0]["reason"] == "version_unchanged");
  CHECK(c["failures"][0]["detail"]["component"] == "gpu");

  auto wave1 = svc.get(path(id, "nodes?wave=1"), "viewer");
  REQUIRE(wave1.status == 200);
  CHECK(wave1.json()["items"].size() == 3);
  auto failed = svc.get(path(id, "nodes?state=failed"), "viewer");
  REQUIRE(failed.json()["items"].size() == 1);
  CHECK(failed.json()["items"][0]["node_id"] == nodes[1]);

  // Pages in plan order.
  auto page1 = svc.get(path(id, "nodes?limit=3"), "viewer");
  REQUIRE(page1.json()["items"].size() == 3);
  REQUIRE(page1.json()["next_cursor"].is_string());
  auto page2 = svc.get(
      path(id, "nodes?limit=3&cursor=" + page1.json()["next_cursor"].get<std::string>()), "viewer");
  REQUIRE(page2.json()["items"].size() == 1);
  CHECK(page2.json()["items"][0]["serial"] == "CD-4");
  CHECK(page2.json()["next_cursor"].is_null());

  CHECK(svc.get(path(id, "nodes?state=exploded"), "viewer").json()["field"] == "state");
  CHECK(svc.get(path(id, "nodes?wave=x"), "viewer").json()["field"] == "wave");
  CHECK(svc.get(path(999), "viewer").status == 404);
  CHECK(svc.get(path(999, "nodes"), "viewer").status == 404);
  CHECK(svc.get(path(999, "events"), "viewer").status == 404);

  auto list = svc.get("/api/v1/campaigns?state=draft", "viewer");
  REQUIRE(list.status == 200);
  REQUIRE(list.json()["items"].size() == 1);
  CHECK(list.json()["items"][0]["id"] == id);
  CHECK(svc.get("/api/v1/campaigns?state=running", "viewer").json()["items"].empty());
  CHECK(svc.get("/api/v1/campaigns?state=nope", "viewer").status == 400);
}

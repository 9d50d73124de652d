// The operator's hands on a node's lifecycle over HTTP with a real Engine and PostgreSQL: run
// listing and paging, the timeline, quarantine (cancels the open run), release, re-run with a
// clean slate, roles and the audit trail.
#include <catch2/catch.hpp>

#include <pqxx/pqxx>

#include "inventory/nodes.hpp"
#include "support/service_fixture.hpp"
#include "workflows/engine.hpp"

using nlohmann::json;
using testing::ServiceFixture;

namespace {

// A node whose lifecycle run is open, with a context as a run deep in the lifecycle has it.
inventory::Id nodeWithRun(ServiceFixture& svc, int n) {
  inventory::NodeSpec spec;
  spec.chassis_serial = "WF-" + std::to_string(n);
  spec.bmc_address = "10.3.0." + std::to_string(n);
  auto node = inventory::createNode(svc.db(), spec, "test");
  REQUIRE(node);
  workflows::StartRequest start;
  start.kind = "node_lifecycle";
  start.subject = "bmc-at:" + spec.bmc_address;
  start.context = {{"bmc_address", spec.bmc_address},
                   {"node_id", node->id},
                   {"bios", {{"reset_at", 1}}},
                   {"imaging", {{"boots", 2}}}};
  start.node_id = node->id;
  start.actor = "test";
  auto started = svc.engine()->start(start);
  REQUIRE(started);
  return node->id;
}

std::string nodePath(inventory::Id id, const std::string& action = "") {
  return "/api/v1/nodes/" + std::to_string(id) + (action.empty() ? "" : "/" + action);
}

long long auditCount(ServiceFixture& svc, const std::string& path, const std::string& actor) {
  pqxx::connection c(svc.databaseUrl());
  pqxx::nontransaction w(c);
  return w
      .exec_params1("SELECT count(*) FROM audit_log WHERE path = $1 AND actor = $2", path, actor)[0]
      .as<long long>();
}

}  // namespace

TEST_CASE("workflow runs page with next_cursor like every listing",
          "[integration][api][workflows]") {
  ServiceFixture svc(testing::withEngine());
  for (int n = 1; n <= 3; ++n) nodeWithRun(svc, n);
  auto first = svc.get("/api/v1/workflows/runs?kind=node_lifecycle&limit=2", "viewer");
  REQUIRE(first.status == 200);
  CHECK(first.json()["items"].size() == 2);
  const auto cursor = first.json()["next_cursor"];
  REQUIRE(cursor.is_string());
  auto rest = svc.get(
      "/api/v1/workflows/runs?kind=node_lifecycle&limit=2&cursor=" + cursor.get<std::string>(),
      "viewer");
  REQUIRE(rest.status == 200);
  CHECK(rest.json()["items"].size() == 1);
  CHECK(rest.json()["next_cursor"].is_null());
  auto summary = svc.get("/api/v1/workflows/summary", "viewer");
  REQUIRE(summary.status == 200);
  CHECK(summary.json()["counts"]["wait"] == 3);
}

TEST_CASE("quarantine cancels the open run and release makes the node ready",
          "[integration][api][workflows]") {
  ServiceFixture svc(testing::withEngine());
  const auto node = nodeWithRun(svc, 1);

  auto refused = svc.sendJson("POST", nodePath(node, "quarantine"), {{"reason", "x"}}, "viewer");
  CHECK(refused.status == 403);
  auto no_reason = svc.sendJson("POST", nodePath(node, "quarantine"), json::object(), "operator");
  CHECK(no_reason.status == 400);

  auto q =
      svc.sendJson("POST", nodePath(node, "quarantine"), {{"reason", "fan noise"}}, "operator");
  REQUIRE(q.status == 200);
  CHECK(q.json()["state"] == "quarantined");
  CHECK(q.json()["state_reason"] == "operator: fan noise");
  auto timeline = svc.get(nodePath(node, "timeline"), "viewer");
  REQUIRE(timeline.status == 200);
  CHECK(timeline.json()["run"]["state"] == "cancelled");
  CHECK(auditCount(svc, nodePath(node, "quarantine"), "test-operator") >= 1);

  auto released =
      svc.sendJson("POST", nodePath(node, "release"), {{"reason", "fan replaced"}}, "operator");
  REQUIRE(released.status == 200);
  CHECK(released.json()["state"] == "ready");
  auto again =
      svc.sendJson("POST", nodePath(node, "release"), {{"reason", "fan replaced"}}, "operator");
  CHECK(again.status == 409);
  CHECK(again.json()["code"] == "node_not_quarantined");
}

TEST_CASE("rerun refuses an open run and starts the next with a clean slate",
          "[integration][api][workflows]") {
  ServiceFixture svc(testing::withEngine());
  const auto node = nodeWithRun(svc, 1);
  auto open = svc.sendJson("POST", nodePath(node, "rerun"), json::object(), "operator");
  CHECK(open.status == 409);
  CHECK(open.json()["code"] == "run_open");

  REQUIRE(
      svc.sendJson("POST", nodePath(node, "quarantine"), {{"reason", "bad"}}, "operator").status ==
      200);
  auto rerun = svc.sendJson("POST", nodePath(node, "rerun"), {{"from_step", "wait"}}, "operator");
  REQUIRE(rerun.status == 202);
  const auto run_id = rerun.json()["id"].get<long long>();
  CHECK(rerun.json()["state"] == "running");
  CHECK(rerun.json()["node_id"] == node);

  pqxx::connection c(svc.databaseUrl());
  pqxx::nontransaction w(c);
  const auto context =
      json::parse(w.exec_params1("SELECT context::text FROM workflow_runs WHERE id = $1", run_id)[0]
                      .as<std::string>());
  CHECK(context["bmc_address"] == "10.3.0.1");  // what the last run knew of the BMC stays
  CHECK_FALSE(context.contains("bios"));        // what its steps did does not
  CHECK_FALSE(context.contains("imaging"));
}

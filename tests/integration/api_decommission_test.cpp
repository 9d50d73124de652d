// Decommissioning over HTTP with a real Engine and PostgreSQL: every bad request answers its 4xx
// and code (never a 5xx), a good one opens the decommission and its node_decommission run, the
// reads show it, and a run that cannot start leaves nothing half-open.
#include <catch2/catch.hpp>

#include <pqxx/pqxx>

#include "inventory/decommissions.hpp"
#include "inventory/nodes.hpp"
#include "inventory/workflow_runs.hpp"
#include "support/service_fixture.hpp"
#include "workflows/engine.hpp"

using nlohmann::json;
using testing::ServiceFixture;

namespace {

inventory::Id readyNode(ServiceFixture& svc, const std::string& serial) {
  inventory::NodeSpec spec;
  spec.chassis_serial = serial;
  auto node = inventory::createNode(svc.db(), spec, "test");
  REQUIRE(node);
  REQUIRE(inventory::setNodeState(svc.db(), node->id, "ready", "test", "brought up"));
  return node->id;
}

// The decommission workflow stands in as one step that waits: the API's part is the start.
void registerDecommissionWorkflow(ServiceFixture& svc) {
  workflows::StepDef wait;
  wait.name = "drain";
  wait.run = [](workflows::StepContext& ctx) {
    return workflows::StepOutcome::waitUntil(ctx.now() + std::chrono::hours(1), "test");
  };
  svc.engine()->registerWorkflow(workflows::WorkflowDef{"node_decommission", "drain", {wait}, ""});
}

std::string decommissionPath(inventory::Id node) {
  return "/api/v1/nodes/" + std::to_string(node) + "/decommission";
}

void checkProblem(const testing::HttpResult& r, int status, const std::string& code) {
  INFO(r.body);
  CHECK(r.status == status);
  CHECK(r.json()["code"] == code);
}

long long auditCount(ServiceFixture& svc, const std::string& path, const std::string& actor) {
  pqxx::connection c(svc.databaseUrl());
  pqxx::nontransaction w(c);
  return w
      .exec_params1("SELECT count(*) FROM audit_log WHERE path = $1 AND actor = $2", path, actor)[0]
      .as<long long>();
}

}  // namespace

TEST_CASE("decommission requests that cannot be honoured answer 4xx with their code",
          "[integration][api][decommission]") {
  ServiceFixture svc(testing::withEngine());
  registerDecommissionWorkflow(svc);
  const auto node = readyNode(svc, "DC-1");
  const json rma = {{"reason", "rma"}};

  checkProblem(svc.sendJson("POST", decommissionPath(99999), rma, "operator"), 404,
               "node_not_found");
  checkProblem(svc.sendJson("POST", "/api/v1/nodes/abc/decommission", rma, "operator"), 400,
               "invalid_field");
  auto bad_reason = svc.sendJson("POST", decommissionPath(node), {{"reason", "bored"}}, "operator");
  checkProblem(bad_reason, 400, "invalid_reason");
  CHECK(bad_reason.json()["field"] == "reason");
  CHECK(bad_reason.json()["detail"].get<std::string>().find("tenant_change") != std::string::npos);
  checkProblem(svc.sendJson("POST", decommissionPath(node), json::object(), "operator"), 400,
               "missing_field");
  checkProblem(svc.sendJson("POST", decommissionPath(node), {{"reason", 7}}, "operator"), 400,
               "invalid_field");
  checkProblem(svc.send("POST", decommissionPath(node), "{\"reason\": ", "operator"), 400,
               "malformed_json");
  checkProblem(
      svc.sendJson("POST", decommissionPath(node), {{"reason", "rma"}, {"note", 1}}, "operator"),
      400, "invalid_field");
  CHECK(svc.sendJson("POST", decommissionPath(node), rma, "viewer").status == 403);
  CHECK(svc.sendJson("POST", decommissionPath(node), rma, "asset").status == 403);

  inventory::NodeSpec busy_spec;
  busy_spec.chassis_serial = "DC-BUSY";  // discovered: its bring-up owns it
  auto busy = inventory::createNode(svc.db(), busy_spec, "test");
  REQUIRE(busy);
  checkProblem(svc.sendJson("POST", decommissionPath(busy->id), rma, "operator"), 409,
               "node_being_provisioned");

  const auto retired = readyNode(svc, "DC-RETIRED");
  REQUIRE(inventory::setNodeState(svc.db(), retired, "retired", "test", "gone"));
  checkProblem(svc.sendJson("POST", decommissionPath(retired), rma, "operator"), 409,
               "node_retired");

  // None of them opened anything.
  CHECK(inventory::listDecommissions(svc.db(), 0)->empty());
  CHECK(inventory::getNode(svc.db(), node)->state == "ready");

  checkProblem(svc.get("/api/v1/decommissions/424242", "viewer"), 404, "decommission_not_found");
  checkProblem(svc.get("/api/v1/decommissions/zero", "viewer"), 400, "invalid_field");
  checkProblem(svc.get("/api/v1/nodes/99999/decommissions", "viewer"), 404, "node_not_found");
}

TEST_CASE("a decommission opens its node_decommission run and reads back",
          "[integration][api][decommission]") {
  ServiceFixture svc(testing::withEngine());
  registerDecommissionWorkflow(svc);
  const auto node = readyNode(svc, "DC-2");

  auto accepted =
      svc.sendJson("POST", decommissionPath(node),
                   {{"reason", "tenant_change"}, {"note", "tenant A leaves"}}, "operator");
  INFO(accepted.body);
  REQUIRE(accepted.status == 202);
  const auto body = accepted.json();
  CHECK(body["state"] == "running");
  CHECK(body["reason"] == "tenant_change");
  CHECK(body["note"] == "tenant A leaves");
  CHECK(body["requested_by"] == "test-operator");
  CHECK(body["node_id"] == node);
  CHECK(body["certificate_id"].is_null());
  const auto id = body["id"].get<inventory::Id>();
  const auto run_id = body["run_id"].get<inventory::Id>();

  auto run = inventory::getWorkflowRun(svc.db(), run_id);
  REQUIRE(run);
  CHECK(run->kind == "node_decommission");
  CHECK(run->subject == "decommission:" + std::to_string(id));
  CHECK(run->node_id == node);
  CHECK(run->created_by == "operator:test-operator");
  CHECK(json::parse(run->context_json)["decommission_id"] == id);
  CHECK(inventory::getNode(svc.db(), node)->state == "decommissioning");
  CHECK(auditCount(svc, decommissionPath(node), "test-operator") == 1);

  checkProblem(svc.sendJson("POST", decommissionPath(node), {{"reason", "rma"}}, "operator"), 409,
               "decommission_open");

  auto fetched = svc.get("/api/v1/decommissions/" + std::to_string(id), "viewer");
  REQUIRE(fetched.status == 200);
  CHECK(fetched.json()["devices"] == json::array());
  CHECK(fetched.json()["evidence"] == json::array());
  CHECK(fetched.json()["run"]["id"] == run_id);
  CHECK(fetched.json()["failure"].is_null());

  auto listed = svc.get("/api/v1/nodes/" + std::to_string(node) + "/decommissions", "viewer");
  REQUIRE(listed.status == 200);
  REQUIRE(listed.json()["items"].size() == 1);
  CHECK(listed.json()["items"][0]["id"] == id);
}

TEST_CASE("a decommission whose run cannot start is failed, not left open",
          "[integration][api][decommission]") {
  SECTION("without the engine the request is refused before anything opens") {
    ServiceFixture svc;
    const auto node = readyNode(svc, "DC-3");
    checkProblem(svc.sendJson("POST", decommissionPath(node), {{"reason", "rma"}}, "operator"), 503,
                 "workflows_disabled");
    CHECK(inventory::listDecommissions(svc.db(), node)->empty());
  }
  SECTION("with an engine that lacks the workflow the decommission fails and may be asked again") {
    ServiceFixture svc(testing::withEngine());
    const auto node = readyNode(svc, "DC-4");
    checkProblem(svc.sendJson("POST", decommissionPath(node), {{"reason", "rma"}}, "operator"), 503,
                 "workflow_unavailable");
    auto list = inventory::listDecommissions(svc.db(), node);
    REQUIRE(list);
    REQUIRE(list->size() == 1);
    CHECK((*list)[0].state == "failed");
    CHECK((*list)[0].failure_reason == "workflow_start_failed");
    CHECK(inventory::getNode(svc.db(), node)->state == "decommission_failed");

    auto shown = svc.get("/api/v1/decommissions/" + std::to_string((*list)[0].id), "viewer");
    REQUIRE(shown.status == 200);
    CHECK(shown.json()["failure"]["reason"] == "workflow_start_failed");
    CHECK(shown.json()["run"].is_null());

    registerDecommissionWorkflow(svc);
    CHECK(svc.sendJson("POST", decommissionPath(node), {{"reason", "rma"}}, "operator").status ==
          202);
  }
}

TEST_CASE("a decommission's step is retried through its own route",
          "[integration][api][decommission]") {
  ServiceFixture svc(testing::withEngine());
  registerDecommissionWorkflow(svc);
  const auto node = readyNode(svc, "DC-5");
  auto accepted = svc.sendJson("POST", decommissionPath(node), {{"reason", "refresh"}}, "operator");
  REQUIRE(accepted.status == 202);
  const auto id = accepted.json()["id"].get<inventory::Id>();
  const auto run_id = accepted.json()["run_id"].get<inventory::Id>();
  const std::string retry = "/api/v1/decommissions/" + std::to_string(id) + "/retry";

  CHECK(svc.sendJson("POST", retry, json::object(), "viewer").status == 403);
  // An open run is not retried: it is still working.
  auto open = svc.sendJson("POST", retry, json::object(), "operator");
  CHECK(open.status == 409);
  REQUIRE(svc.engine()->cancel(run_id, "test", "stuck"));
  auto retried = svc.sendJson("POST", retry, {{"step", "drain"}}, "operator");
  INFO(retried.body);
  CHECK(retried.status == 202);
  CHECK(inventory::getWorkflowRun(svc.db(), run_id)->state == "running");
  checkProblem(svc.sendJson("POST", "/api/v1/decommissions/999/retry", json::object(), "operator"),
               404, "decommission_not_found");
}

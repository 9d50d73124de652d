// The resident agent's tasks (inventory/resident_tasks.hpp, docs/health.md "Actions"): handed to
// the agent in its health batch's answer (residentTasksFor), reported back here with its node
// credential, listed per node for operators.
#include <chrono>

#include <nlohmann/json.hpp>

#include "agent_auth.hpp"
#include "burn_in_verdict.hpp"
#include "input.hpp"
#include "inventory/resident_tasks.hpp"
#include "json_views.hpp"
#include "resident_tasks_json.hpp"
#include "routes.hpp"
#include "workflows/clock.hpp"

namespace provisioner::api {

using common::Result;
using http::FieldReader;
using http::Request;
using http::Response;
using nlohmann::json;

namespace {

// A JSON document the service stored itself; null when there is none.
json storedJson(const std::string& text) {
  auto doc = json::parse(text.empty() ? "null" : text, nullptr, false);
  return doc.is_discarded() ? json(nullptr) : doc;
}

json taskJson(const inventory::ResidentTask& t) {
  return {{"id", t.id},
          {"node_id", t.node_id},
          {"kind", t.kind},
          {"gpu_serial", t.gpu_serial},
          {"flag_id", t.flag_id ? json(*t.flag_id) : json(nullptr)},
          {"run_id", t.run_id},
          {"state", t.state},
          {"message", t.message},
          {"created_at", t.created_at},
          {"delivered_at", textOrNull(t.delivered_at)},
          {"finished_at", textOrNull(t.finished_at)},
          {"done_at", textOrNull(t.done_at)},
          {"verdict", storedJson(t.verdict_json)}};
}

// A protocol parser's error, its field named inside the report ("result.measurements[0].value").
common::Error inside(const char* object, common::Error error) {
  error.field = error.field.empty() ? object : std::string(object) + "." + error.field;
  return error;
}

// What the service makes of the report: a burn-in that ran is judged here (the agent's
// "succeeded" says only that it ran): passed -> succeeded, anything else -> failed.
struct Report {
  bool succeeded = false;
  std::string message;
  std::optional<std::string> verdict_json;
};

Result<Report> judgedBurnIn(const inventory::ResidentTask& task, const FieldReader& in) {
  PROV_ASSIGN(auto result_in, in.optionalObject("result"));
  PROV_ASSIGN(auto facts_in, in.optionalObject("facts"));
  if (!result_in || !facts_in) {
    const std::string name = result_in ? "facts" : "result";
    return common::invalidArgument("missing_field", "a burn-in's report needs its " + name, name);
  }
  auto result = agent::parseTaskResult(result_in->json());
  if (!result) return common::fail(inside("result", result.error()));
  if (result->task_id != task.id) {
    return common::invalidArgument("invalid_field", "expected this task's id", "result.task_id");
  }
  auto facts = agent::parseFacts(facts_in->json());
  if (!facts) return common::fail(inside("facts", facts.error()));
  PROV_ASSIGN(auto judged, judgeResidentBurnIn(task.spec_json, *facts, *result));
  return Report{judged.state == "passed", judged.summary, agent::toJson(judged.verdict).dump()};
}

// POST /api/v1/agent/nodes/{node_id}/resident-tasks/{task_id}/result (the monitor credential):
// {"status": "succeeded" | "failed", "message", "done_at" (the node's clock)}; a burn-in that ran
// adds "result" (the agent's task result) and "facts" (its GPUs), which the service judges.
Result<Response> postResult(const ApiContext& ctx, const Request& req) {
  PROV_ASSIGN(auto node_id, idParam(req, "node_id"));
  PROV_ASSIGN(auto task_id, idParam(req, "task_id"));
  PROV_TRY(authorizeMonitor(*ctx.db, req, node_id));
  PROV_ASSIGN(auto body, http::parseJsonObject(req.body));
  FieldReader in(body);
  PROV_ASSIGN(auto status, in.requiredString("status", 16));
  if (status != "succeeded" && status != "failed") {
    return common::invalidArgument("invalid_field", "expected \"succeeded\" or \"failed\"",
                                   "status");
  }
  PROV_ASSIGN(auto message, in.optionalString("message", 1024));
  PROV_ASSIGN(auto done_text, in.optionalString("done_at", 64));
  std::optional<inventory::health::Seconds> done_at;
  if (done_text) {
    done_at = inventory::health::parseUtc(*done_text);
    if (!done_at) {
      return common::invalidArgument("invalid_field", "expected an ISO-8601 UTC time", "done_at");
    }
  }
  PROV_ASSIGN(auto task, inventory::getResidentTask(*ctx.db, task_id));
  Report report{status == "succeeded", message.value_or(""), std::nullopt};
  if (task.node_id == node_id && task.kind == inventory::kResidentBurnIn && report.succeeded) {
    PROV_ASSIGN(report, judgedBurnIn(task, in));
  }
  PROV_ASSIGN(task, inventory::finishResidentTask(*ctx.db, node_id, task_id, report.succeeded,
                                                  report.message, done_at, requestTime(ctx),
                                                  report.verdict_json));
  return http::jsonResponse(200, taskJson(task));
}

// GET /api/v1/nodes/{id}/resident-tasks: newest first, at most 200.
Result<Response> list(const ApiContext& ctx, const Request& req) {
  PROV_ASSIGN(auto node_id, idParam(req, "id"));
  PROV_ASSIGN(auto tasks, inventory::listResidentTasks(*ctx.db, node_id));
  json items = json::array();
  for (const auto& t : tasks) items.push_back(taskJson(t));
  return http::jsonResponse(200, {{"items", items}});
}

}  // namespace

Result<json> residentTasksFor(const ApiContext& ctx, const inventory::NodeCredentialGrant& grant) {
  json out = json::array();
  if (!grant.has_open_tasks) return out;  // the usual case: no second query
  PROV_ASSIGN(auto tasks,
              inventory::deliverResidentTasks(*ctx.db, grant.node_id, requestTime(ctx)));
  for (const auto& t : tasks) {
    json order = {{"id", t.id}, {"kind", t.kind}, {"gpu_serial", t.gpu_serial}};
    if (t.kind == inventory::kResidentBurnIn) {
      const json spec = storedJson(t.spec_json);
      order["plan"] = spec.is_object() ? spec.value("plan", json::object()) : json::object();
    }
    out.push_back(std::move(order));
  }
  return out;
}

void addResidentTaskRoutes(http::ApiServer& server, const ContextPtr& ctx) {
  using http::Method;
  using http::Permission;
  // Public at the API-token layer: the handler checks the node's monitor credential.
  server.addRoute({Method::kPost, "/api/v1/agent/nodes/{node_id}/resident-tasks/{task_id}/result",
                   "agent.resident_task.result", Permission::kPublic,
                   withContext(ctx, postResult)});
  server.addRoute({Method::kGet, "/api/v1/nodes/{id}/resident-tasks", "nodes.resident_tasks",
                   Permission::kReadInventory, withContext(ctx, list)});
}

}  // namespace provisioner::api

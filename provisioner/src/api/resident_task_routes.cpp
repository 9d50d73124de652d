// The resident agent's tasks (inventory/resident_tasks.hpp, docs/health.md "Actions"): handed to
// the agent in its health batch's answer (residentTasksFor), reported back here with its node
// credential, listed per node for operators.
#include <chrono>

#include <nlohmann/json.hpp>

#include "agent_auth.hpp"
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
          {"done_at", textOrNull(t.done_at)}};
}

// POST /api/v1/agent/nodes/{node_id}/resident-tasks/{task_id}/result (the monitor credential):
// {"status": "succeeded" | "failed", "message", "done_at" (the node's clock)}.
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
  PROV_ASSIGN(auto task,
              inventory::finishResidentTask(*ctx.db, node_id, task_id, status == "succeeded",
                                            message.value_or(""), done_at, requestTime(ctx)));
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
    out.push_back({{"id", t.id}, {"kind", t.kind}, {"gpu_serial", t.gpu_serial}});
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

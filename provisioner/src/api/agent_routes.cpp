// What the in-band agent calls (docs/agent.md): register with the one-time boot token, fetch the
// task, stream progress, post the result. Every call is scoped to the node the token was minted
// for.
#include <spdlog/spdlog.h>
#include <nlohmann/json.hpp>

#include "agent/protocol.hpp"
#include "agent_auth.hpp"
#include "burn_in_verdict.hpp"
#include "input.hpp"
#include "inventory/agent_tasks.hpp"
#include "routes.hpp"
#include "wipe_task.hpp"
#include "workflows/decommission/workflow.hpp"
#include "workflows/engine.hpp"
#include "workflows/lifecycle.hpp"
#include "workflows/rollout.hpp"

namespace provisioner::api {
namespace {

using common::Result;
using http::Request;
using http::Response;

bool isOpen(const inventory::AgentTask& task) {
  return task.state == "pending" || task.state == "running";
}

common::Error taskNotOpen(const inventory::AgentTask& task) {
  return common::conflict("task_not_open", "task " + std::to_string(task.id) + " is " + task.state);
}

// The session token names one task; a path naming another is refused.
Result<inventory::AgentTask> sessionTask(const ApiContext& ctx, const Request& req,
                                         inventory::Id node_id) {
  PROV_ASSIGN(auto grant, authorizeAgent(*ctx.db, req, node_id, kSessionToken));
  if (!req.pathParam("task_id").empty()) {
    PROV_ASSIGN(auto task_id, idParam(req, "task_id"));
    if (task_id != grant.task_id) {
      common::Error e = common::permissionDenied("this agent token is for another task");
      e.code = "agent_token_wrong_task";
      return common::fail(std::move(e));
    }
  }
  return inventory::getAgentTask(*ctx.db, grant.task_id);
}

// Wakes the node's runs that wait on its agent (the lifecycle's burn-in, a firmware or image
// update's quick check, a decommission's wipe) so they see the news now rather than at their
// next timer. Best effort: the agent's request never fails for it (the timers still fire).
void wakeNodeRuns(const ApiContext& ctx, inventory::Id node_id) {
  if (!ctx.engine) return;
  for (const char* kind : {workflows::kNodeLifecycle, workflows::kNodeFirmwareUpdate,
                           workflows::kNodeImageUpdate, workflows::kNodeDecommission}) {
    if (auto woken = ctx.engine->signalNode(kind, node_id); !woken) {
      spdlog::warn("could not signal the {} run of node {}: {}", kind, node_id,
                   woken.error().message);
    }
  }
}

Result<nlohmann::json> bodyJson(const Request& req) {
  return http::parseJsonObject(req.body);
}

std::vector<std::string> nicMacs(const agent::Facts& facts) {
  std::vector<std::string> macs;
  for (const auto& nic : facts.nics) macs.push_back(nic.mac);
  return macs;
}

Result<Response> registerAgent(const ApiContext& ctx, const Request& req) {
  PROV_ASSIGN(auto node_id, idParam(req, "node_id"));
  PROV_ASSIGN(auto body, bodyJson(req));
  PROV_ASSIGN(auto facts, agent::parseFacts(body));
  PROV_ASSIGN(auto grant, authorizeAgent(*ctx.db, req, node_id, kBootToken));
  PROV_ASSIGN(auto task, inventory::getAgentTask(*ctx.db, grant.task_id));
  if (!isOpen(task)) return common::fail(taskNotOpen(task));
  PROV_TRY(
      inventory::recordRegistration(*ctx.db, task.id, agent::toJson(facts).dump(), nicMacs(facts)));
  PROV_ASSIGN(auto session, mintAgentToken(*ctx.db, node_id, task.id, kSessionToken,
                                           ctx.boot.session_token_ttl_s));
  wakeNodeRuns(ctx, node_id);
  return http::jsonResponse(
      200, {{"node_id", node_id}, {"task_id", task.id}, {"session_token", session}});
}

Result<Response> fetchTask(const ApiContext& ctx, const Request& req) {
  PROV_ASSIGN(auto node_id, idParam(req, "node_id"));
  PROV_ASSIGN(auto task, sessionTask(ctx, req, node_id));
  if (!isOpen(task)) return http::jsonResponse(200, agent::toJson(agent::Task{}));
  PROV_ASSIGN(task, inventory::markTaskStarted(*ctx.db, task.id));
  PROV_ASSIGN(auto wire, wireTask(task));
  return http::jsonResponse(200, agent::toJson(wire));
}

Result<Response> reportProgress(const ApiContext& ctx, const Request& req) {
  PROV_ASSIGN(auto node_id, idParam(req, "node_id"));
  PROV_ASSIGN(auto task, sessionTask(ctx, req, node_id));
  PROV_ASSIGN(auto body, bodyJson(req));
  PROV_ASSIGN(auto progress, agent::parseProgress(body));
  if (!isOpen(task)) return common::fail(taskNotOpen(task));
  PROV_TRY(inventory::recordProgress(*ctx.db, task.id, agent::toJson(progress).dump()));
  return http::Response{204, "application/json", "", {}, "", 0};
}

Result<Response> reportResult(const ApiContext& ctx, const Request& req) {
  PROV_ASSIGN(auto node_id, idParam(req, "node_id"));
  PROV_ASSIGN(auto task, sessionTask(ctx, req, node_id));
  PROV_ASSIGN(auto body, bodyJson(req));
  PROV_ASSIGN(auto result, agent::parseTaskResult(body));
  if (task.state != "running") return common::fail(taskNotOpen(task));
  if (task.kind == "wipe") {
    PROV_ASSIGN(auto finished, finishWipeTask(ctx, task, result, req.body));
    wakeNodeRuns(ctx, node_id);
    return http::jsonResponse(
        200, {{"task_id", task.id}, {"state", finished.state}, {"verdict", finished.verdict}});
  }
  PROV_ASSIGN(auto judged, judgeTask(*ctx.db, task, result));
  const auto verdict_json = agent::toJson(judged.verdict);
  PROV_TRY(inventory::finishAgentTask(*ctx.db, task.id, judged.state, judged.records,
                                      verdict_json.dump(), judged.summary));
  wakeNodeRuns(ctx, node_id);
  return http::jsonResponse(
      200, {{"task_id", task.id}, {"state", judged.state}, {"verdict", verdict_json}});
}

}  // namespace

void addAgentRoutes(http::ApiServer& server, const ContextPtr& ctx) {
  using http::Method;
  using http::Permission;
  // Public at the API-token layer: each handler checks the node-scoped agent token itself.
  server.addRoute({Method::kPost, "/api/v1/agent/nodes/{node_id}/register", "agent.register",
                   Permission::kPublic, withContext(ctx, registerAgent)});
  server.addRoute({Method::kGet, "/api/v1/agent/nodes/{node_id}/task", "agent.task",
                   Permission::kPublic, withContext(ctx, fetchTask)});
  server.addRoute({Method::kPost, "/api/v1/agent/nodes/{node_id}/tasks/{task_id}/progress",
                   "agent.progress", Permission::kPublic, withContext(ctx, reportProgress)});
  server.addRoute({Method::kPost, "/api/v1/agent/nodes/{node_id}/tasks/{task_id}/result",
                   "agent.result", Permission::kPublic, withContext(ctx, reportResult)});
}

}  // namespace provisioner::api

// Decommissioning a node (issue 12 section 1): the operator's request opens a decommission in the
// inventory and starts its workflow run; reads show what was sanitized, how it was verified and
// the certificate. A step is retried through the decommission's own retry route.
#include <nlohmann/json.hpp>

#include "common/secret_box.hpp"
#include "decommission_views.hpp"
#include "input.hpp"
#include "inventory/decommissions.hpp"
#include "inventory/nodes.hpp"
#include "inventory/workflow_runs.hpp"
#include "routes.hpp"
#include "workflows/clock.hpp"
#include "workflows/decommission/workflow.hpp"
#include "workflows/engine.hpp"

namespace provisioner::api {
namespace {

using common::Result;
using http::Request;
using http::Response;
using nlohmann::json;

Result<workflows::Engine*> engineOf(const ApiContext& ctx) {
  if (!ctx.engine) {
    return common::fail(common::unavailable(
        "workflows_disabled", "this service runs without the workflow engine (--no-workflows)"));
  }
  return ctx.engine.get();
}

std::chrono::system_clock::time_point nowOf(const ApiContext& ctx) {
  return ctx.clock ? ctx.clock->now() : std::chrono::system_clock::now();
}

// Non-negative: the seed travels through JSON and SQL bigint alike.
std::int64_t freshWipeSeed() {
  const std::string bytes = common::randomBytes(8);
  std::uint64_t seed = 0;
  for (unsigned char c : bytes) seed = (seed << 8) | c;
  return static_cast<std::int64_t>(seed >> 1);
}

std::string operatorActor(const Request& req) {
  return "operator:" + actorOf(req);
}

Result<inventory::DecommissionRequest> readRequest(const ApiContext& ctx, const Request& req,
                                                   inventory::Id node_id) {
  PROV_ASSIGN(auto body, http::parseJsonObject(req.body));
  http::FieldReader in(body);
  inventory::DecommissionRequest request;
  request.node_id = node_id;
  PROV_ASSIGN(request.reason, in.requiredString("reason", 64));
  PROV_ASSIGN(auto note, in.optionalString("note", 4096));
  request.note = note.value_or("");
  request.requested_by = actorOf(req);
  request.wipe_seed = freshWipeSeed();
  request.at = nowOf(ctx);
  return request;
}

Result<workflows::StartResult> startRun(const ApiContext& ctx, workflows::Engine& engine,
                                        const inventory::Decommission& d, const Request& req) {
  PROV_ASSIGN(auto node, inventory::getNode(*ctx.db, d.node_id));
  workflows::StartRequest start;
  start.kind = workflows::kNodeDecommission;
  start.subject = workflows::decommissionSubject(d.id);
  start.context = {{"decommission_id", d.id}};
  start.node_id = d.node_id;
  start.site = node.site;
  start.rack = node.rack;
  start.actor = operatorActor(req);
  return engine.start(start);
}

Result<Response> decommissionNode(const ApiContext& ctx, const Request& req) {
  PROV_ASSIGN(auto engine, engineOf(ctx));
  PROV_ASSIGN(auto node_id, idParam(req, "id"));
  PROV_ASSIGN(auto request, readRequest(ctx, req, node_id));
  PROV_ASSIGN(auto decommission, inventory::createDecommission(*ctx.db, request));
  auto started = startRun(ctx, *engine, decommission, req);
  if (!started) {
    // Nothing stays half-open: the node is marked failed with the reason and can be asked again.
    json detail = {{"error", started.error().code}, {"message", started.error().message}};
    (void)inventory::failDecommission(*ctx.db, decommission.id, "workflow_start_failed",
                                      detail.dump(), nowOf(ctx));
    if (started.error().kind == common::ErrorKind::kInvalidArgument) {
      // The request was fine; this service lacks the workflow (e.g. not registered).
      return common::fail(common::unavailable(
          "workflow_unavailable",
          "the decommission workflow cannot start here: " + started.error().message));
    }
    return common::fail(started.error());
  }
  json out = decommissionSummaryJson(decommission);
  out["run_id"] = started->run_id;
  return http::jsonResponse(202, out);
}

Result<json> decommissionWithRun(const ApiContext& ctx, const inventory::Decommission& d) {
  PROV_ASSIGN(auto devices, inventory::listDeviceSanitizations(*ctx.db, d.id));
  PROV_ASSIGN(auto evidence, inventory::listEvidence(*ctx.db, d.id));
  PROV_ASSIGN(auto run, inventory::latestRunForSubject(*ctx.db, workflows::kNodeDecommission,
                                                       workflows::decommissionSubject(d.id)));
  json out = decommissionJson(d, devices, evidence);
  out["run"] =
      run ? json{{"id", run->id}, {"state", run->state}, {"step", run->step}} : json(nullptr);
  return out;
}

Result<Response> getDecommission(const ApiContext& ctx, const Request& req) {
  PROV_ASSIGN(auto id, idParam(req, "id"));
  PROV_ASSIGN(auto d, inventory::getDecommission(*ctx.db, id));
  PROV_ASSIGN(auto out, decommissionWithRun(ctx, d));
  return http::jsonResponse(200, out);
}

Result<Response> listNodeDecommissions(const ApiContext& ctx, const Request& req) {
  PROV_ASSIGN(auto node_id, idParam(req, "id"));
  PROV_TRY(inventory::getNode(*ctx.db, node_id));  // node_not_found, not an empty list
  PROV_ASSIGN(auto list, inventory::listDecommissions(*ctx.db, node_id));
  json items = json::array();
  for (const auto& d : list) items.push_back(decommissionSummaryJson(d));
  return http::jsonResponse(200, {{"node_id", node_id}, {"items", items}});
}

// Runs a failed or waiting step of the decommission's run again (from `step` if given).
Result<Response> retryDecommission(const ApiContext& ctx, const Request& req) {
  PROV_ASSIGN(auto engine, engineOf(ctx));
  PROV_ASSIGN(auto id, idParam(req, "id"));
  PROV_ASSIGN(auto body, http::parseJsonObject(req.body.empty() ? "{}" : req.body));
  PROV_ASSIGN(auto step, http::FieldReader(body).optionalString("step", 64));
  PROV_ASSIGN(auto d, inventory::getDecommission(*ctx.db, id));
  PROV_ASSIGN(auto run, inventory::latestRunForSubject(*ctx.db, workflows::kNodeDecommission,
                                                       workflows::decommissionSubject(d.id)));
  if (!run) {
    return common::fail(common::notFound("decommission_run_not_found",
                                         "decommission " + std::to_string(id) + " has no run"));
  }
  PROV_TRY(engine->retry(run->id, operatorActor(req), step));
  PROV_ASSIGN(auto out, decommissionWithRun(ctx, d));
  return http::jsonResponse(202, out);
}

}  // namespace

void addDecommissionRoutes(http::ApiServer& server, const ContextPtr& ctx) {
  using http::Method;
  using http::Permission;
  server.addRoute({Method::kPost, "/api/v1/nodes/{id}/decommission", "nodes.decommission",
                   Permission::kOperateNodes, withContext(ctx, decommissionNode)});
  server.addRoute({Method::kGet, "/api/v1/nodes/{id}/decommissions", "nodes.decommissions",
                   Permission::kReadInventory, withContext(ctx, listNodeDecommissions)});
  server.addRoute({Method::kGet, "/api/v1/decommissions/{id}", "decommissions.get",
                   Permission::kReadInventory, withContext(ctx, getDecommission)});
  server.addRoute({Method::kPost, "/api/v1/decommissions/{id}/retry", "decommissions.retry",
                   Permission::kOperateNodes, withContext(ctx, retryDecommission)});
}

}  // namespace provisioner::api

// Workflow runs and the operator's hands on a node's lifecycle: the timeline, retry of a step,
// quarantine, release and re-run. Each action is audited by the HTTP layer and written to the
// run's timeline with the operator's name.
#include <nlohmann/json.hpp>

#include "input.hpp"
#include "inventory/nodes.hpp"
#include "inventory/workflow_runs.hpp"
#include "json_views.hpp"
#include "provisioner/http/pagination.hpp"
#include "routes.hpp"
#include "workflows/engine.hpp"
#include "workflows/lifecycle.hpp"

namespace provisioner::api {
namespace {

using common::Result;
using http::Request;
using http::Response;
using nlohmann::json;

json parsedOrText(const std::string& text) {
  auto parsed = json::parse(text, nullptr, false);
  return parsed.is_discarded() ? json(text) : parsed;
}

json runJson(const inventory::WorkflowRun& r) {
  return {{"id", r.id},
          {"kind", r.kind},
          {"subject", r.subject},
          {"state", r.state},
          {"step", r.step},
          {"attempt", r.attempt},
          {"waiting_for", r.waiting_for},
          {"node_id", r.node_id ? json(*r.node_id) : json(nullptr)},
          {"site", r.site},
          {"rack", r.rack},
          {"reason", r.reason},
          {"detail", parsedOrText(r.detail_json)},
          {"leased_by", r.lease_owner},
          {"created_by", r.created_by},
          {"created_at", r.created_at},
          {"updated_at", r.updated_at},
          {"finished_at", r.finished_at.empty() ? json(nullptr) : json(r.finished_at)}};
}

json eventJson(const inventory::WorkflowEventRecord& e) {
  return {{"id", e.id},
          {"run_id", e.run_id},
          {"at", e.at},
          {"actor", e.actor},
          {"step", e.step},
          {"kind", e.kind},
          {"message", e.message},
          {"detail", parsedOrText(e.detail_json)},
          {"duration_ms", e.duration_ms ? json(*e.duration_ms) : json(nullptr)}};
}

json eventsJson(const std::vector<inventory::WorkflowEventRecord>& events) {
  json out = json::array();
  for (const auto& e : events) out.push_back(eventJson(e));
  return out;
}

Result<workflows::Engine*> engineOf(const ApiContext& ctx) {
  if (!ctx.engine) {
    return common::fail(common::unavailable(
        "workflows_disabled", "this service runs without the workflow engine (--no-workflows)"));
  }
  return ctx.engine.get();
}

Result<inventory::WorkflowRun> latestLifecycleRun(const ApiContext& ctx, inventory::Id node_id) {
  PROV_TRY(inventory::getNode(*ctx.db, node_id));  // node_not_found first
  PROV_ASSIGN(auto run, inventory::latestRunForNode(*ctx.db, workflows::kNodeLifecycle, node_id));
  if (!run) {
    return common::fail(common::notFound(
        "lifecycle_run_not_found",
        "node " + std::to_string(node_id) + " has never been through the lifecycle workflow"));
  }
  return std::move(*run);
}

Result<std::string> reasonField(const http::FieldReader& in) {
  PROV_ASSIGN(auto reason, requiredText(in, "reason", 1024));
  return reason;
}

Result<Response> runResponse(const ApiContext& ctx, inventory::Id run_id, int status) {
  PROV_ASSIGN(auto run, inventory::getWorkflowRun(*ctx.db, run_id));
  return http::jsonResponse(status, runJson(run));
}

Result<Response> nodeTimeline(const ApiContext& ctx, const Request& req) {
  PROV_ASSIGN(auto id, idParam(req, "id"));
  PROV_TRY(inventory::getNode(*ctx.db, id));
  PROV_ASSIGN(auto run, inventory::latestRunForNode(*ctx.db, workflows::kNodeLifecycle, id));
  PROV_ASSIGN(auto events, inventory::nodeTimeline(*ctx.db, id));
  return http::jsonResponse(200, {{"node_id", id},
                                  {"run", run ? runJson(*run) : json(nullptr)},
                                  {"events", eventsJson(events)}});
}

Result<Response> retryNode(const ApiContext& ctx, const Request& req) {
  PROV_ASSIGN(auto engine, engineOf(ctx));
  PROV_ASSIGN(auto id, idParam(req, "id"));
  PROV_ASSIGN(auto body, http::parseJsonObject(req.body.empty() ? "{}" : req.body));
  http::FieldReader in(body);
  PROV_ASSIGN(auto step, in.optionalString("step", 64));
  PROV_ASSIGN(auto run, latestLifecycleRun(ctx, id));
  PROV_TRY(engine->retry(run.id, actorOf(req), step));
  return runResponse(ctx, run.id, 202);
}

Result<Response> quarantineNode(const ApiContext& ctx, const Request& req) {
  PROV_ASSIGN(auto id, idParam(req, "id"));
  PROV_ASSIGN(auto body, http::parseJsonObject(req.body));
  PROV_ASSIGN(auto reason, reasonField(http::FieldReader(body)));
  PROV_ASSIGN(auto run, inventory::latestRunForNode(*ctx.db, workflows::kNodeLifecycle, id));
  if (run && run->state == "running") {
    PROV_ASSIGN(auto engine, engineOf(ctx));
    PROV_TRY(engine->cancel(run->id, actorOf(req), "quarantined by operator: " + reason));
  }
  PROV_ASSIGN(auto node, inventory::setNodeState(*ctx.db, id, "quarantined", actorOf(req),
                                                 "operator: " + reason));
  return http::jsonResponse(200, toJson(node));
}

Result<Response> releaseNode(const ApiContext& ctx, const Request& req) {
  PROV_ASSIGN(auto id, idParam(req, "id"));
  PROV_ASSIGN(auto body, http::parseJsonObject(req.body));
  PROV_ASSIGN(auto reason, reasonField(http::FieldReader(body)));
  PROV_ASSIGN(auto node, inventory::getNode(*ctx.db, id));
  if (node.state != "quarantined") {
    return common::fail(
        common::conflict("node_not_quarantined", "only a quarantined node can be released; node " +
                                                     std::to_string(id) + " is " + node.state));
  }
  PROV_ASSIGN(auto released, inventory::setNodeState(*ctx.db, id, "ready", actorOf(req),
                                                     "released by operator: " + reason));
  return http::jsonResponse(200, toJson(released));
}

// A fresh lifecycle run for the node's BMC, from the first step or `from_step`, with what the
// last run knew of the BMC (its discovery, address, MAC).
Result<Response> rerunNode(const ApiContext& ctx, const Request& req) {
  PROV_ASSIGN(auto engine, engineOf(ctx));
  PROV_ASSIGN(auto id, idParam(req, "id"));
  PROV_ASSIGN(auto body, http::parseJsonObject(req.body.empty() ? "{}" : req.body));
  http::FieldReader in(body);
  PROV_ASSIGN(auto from_step, in.optionalString("from_step", 64));
  PROV_ASSIGN(auto last, latestLifecycleRun(ctx, id));
  if (last.state == "running") {
    return common::fail(common::conflict(
        "run_open", "node " + std::to_string(id) + " has a lifecycle run in progress (run " +
                        std::to_string(last.id) + ", step " + last.step + ")"));
  }
  json context = json::parse(last.context_json, nullptr, false);
  if (!context.is_object()) context = json::object();
  // What the last run learnt of the BMC and the node stays; what its steps did (the claim, BIOS
  // reset, firmware updates, boots counted, the failure) does not, or the new run would skip it.
  for (const char* progress : {"failure", "claim", "bios", "firmware", "imaging"}) {
    context.erase(progress);
  }
  workflows::StartRequest start;
  start.kind = workflows::kNodeLifecycle;
  start.subject = last.subject;
  start.context = std::move(context);
  start.node_id = id;
  start.site = last.site;
  start.rack = last.rack;
  start.actor = actorOf(req);
  start.at_step = from_step;
  PROV_ASSIGN(auto started, engine->start(start));
  return runResponse(ctx, started.run_id, 202);
}

Result<Response> listRuns(const ApiContext& ctx, const Request& req) {
  inventory::WorkflowRunFilter filter;
  filter.kind = req.query("kind").value_or("");
  filter.state = req.query("state").value_or("");
  filter.step = req.query("step").value_or("");
  PROV_ASSIGN(filter.page, pageRequest(req));
  PROV_ASSIGN(auto page, inventory::listWorkflowRuns(*ctx.db, filter));
  json items = json::array();
  for (const auto& r : page.items) items.push_back(runJson(r));
  return http::jsonResponse(
      200, {{"items", items},
            {"next_cursor",
             page.next_after ? json(http::encodeCursor(*page.next_after)) : json(nullptr)}});
}

Result<Response> getRun(const ApiContext& ctx, const Request& req) {
  PROV_ASSIGN(auto id, idParam(req, "id"));
  PROV_ASSIGN(auto run, inventory::getWorkflowRun(*ctx.db, id));
  PROV_ASSIGN(auto events, inventory::workflowRunEvents(*ctx.db, id));
  json out = runJson(run);
  out["events"] = eventsJson(events);
  return http::jsonResponse(200, out);
}

// Open runs per step and finished runs per state: what a progress display needs in one call.
Result<Response> runSummary(const ApiContext& ctx, const Request& req) {
  const std::string kind = req.query("kind").value_or(workflows::kNodeLifecycle);
  PROV_ASSIGN(auto counts, inventory::workflowRunCounts(*ctx.db, kind));
  json out = json::object();
  for (const auto& [key, n] : counts) out[key] = n;
  return http::jsonResponse(200, {{"kind", kind}, {"counts", out}});
}

}  // namespace

void addWorkflowRoutes(http::ApiServer& server, const ContextPtr& ctx) {
  using http::Method;
  using http::Permission;
  server.addRoute({Method::kGet, "/api/v1/nodes/{id}/timeline", "nodes.timeline",
                   Permission::kReadInventory, withContext(ctx, nodeTimeline)});
  server.addRoute({Method::kPost, "/api/v1/nodes/{id}/retry", "nodes.retry",
                   Permission::kOperateNodes, withContext(ctx, retryNode)});
  server.addRoute({Method::kPost, "/api/v1/nodes/{id}/quarantine", "nodes.quarantine",
                   Permission::kOperateNodes, withContext(ctx, quarantineNode)});
  server.addRoute({Method::kPost, "/api/v1/nodes/{id}/release", "nodes.release",
                   Permission::kOperateNodes, withContext(ctx, releaseNode)});
  server.addRoute({Method::kPost, "/api/v1/nodes/{id}/rerun", "nodes.rerun",
                   Permission::kOperateNodes, withContext(ctx, rerunNode)});
  server.addRoute({Method::kGet, "/api/v1/workflows/runs", "workflows.runs.list",
                   Permission::kReadInventory, withContext(ctx, listRuns)});
  server.addRoute({Method::kGet, "/api/v1/workflows/runs/{id}", "workflows.runs.get",
                   Permission::kReadInventory, withContext(ctx, getRun)});
  server.addRoute({Method::kGet, "/api/v1/workflows/summary", "workflows.summary",
                   Permission::kReadInventory, withContext(ctx, runSummary)});
}

}  // namespace provisioner::api

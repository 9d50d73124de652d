// Operator side of agent tasks: boot MACs, starting and cancelling a burn-in, reading tasks,
// verdicts and a GPU's burn-in history.
#include <chrono>

#include <nlohmann/json.hpp>

#include "agent/protocol.hpp"
#include "catalog_views.hpp"
#include "common/mac_address.hpp"
#include "input.hpp"
#include "inventory/agent_tasks.hpp"
#include "inventory/images.hpp"
#include "inventory/nodes.hpp"
#include "routes.hpp"

namespace provisioner::api {
namespace {

using common::Result;
using http::Request;
using http::Response;

Result<Response> addBootMacs(const ApiContext& ctx, const Request& req) {
  PROV_ASSIGN(auto id, idParam(req, "id"));
  PROV_ASSIGN(auto body, http::parseJsonObject(req.body));
  http::FieldReader in(body);
  PROV_ASSIGN(auto raw, in.arrayOfStrings("macs", 64));
  if (raw.empty()) {
    return common::fail(
        common::invalidArgument("missing_field", "macs must list at least one MAC", "macs"));
  }
  std::vector<std::string> macs;
  for (std::size_t i = 0; i < raw.size(); ++i) {
    auto mac = common::normalizeMac(raw[i]);
    if (!mac)
      return common::fail(
          std::move(mac).error().withField(in.pathOf("macs") + "[" + std::to_string(i) + "]"));
    macs.push_back(*mac);
  }
  PROV_TRY(inventory::getNode(*ctx.db, id));
  PROV_TRY(inventory::addBootMacs(*ctx.db, id, macs, "operator"));
  PROV_ASSIGN(auto all, inventory::listBootMacs(*ctx.db, id));
  return http::jsonResponse(200, {{"node_id", id}, {"macs", all}});
}

Result<Response> listBootMacs(const ApiContext& ctx, const Request& req) {
  PROV_ASSIGN(auto id, idParam(req, "id"));
  PROV_TRY(inventory::getNode(*ctx.db, id));
  PROV_ASSIGN(auto all, inventory::listBootMacs(*ctx.db, id));
  return http::jsonResponse(200, {{"node_id", id}, {"macs", all}});
}

// The plan: the request's, else the hardware profile's, else the default.
Result<std::string> planFor(const http::FieldReader& in,
                            const inventory::HardwareProfile* profile) {
  PROV_ASSIGN(auto plan, optionalBurnInPlan(in, "plan"));
  if (plan) return *plan;
  if (profile != nullptr && profile->burn_in_plan_json != "{}") return profile->burn_in_plan_json;
  return agent::toJson(agent::defaultBurnInPlan()).dump();
}

// POST /api/v1/nodes/{id}/burn-in {"batch"?: "...", "plan"?: {...}}: the node is now due to
// network-boot into its profile's image and run the plan.
Result<Response> startBurnIn(const ApiContext& ctx, const Request& req) {
  PROV_ASSIGN(auto id, idParam(req, "id"));
  PROV_ASSIGN(auto body, http::parseJsonObject(req.body.empty() ? "{}" : req.body));
  http::FieldReader in(body);
  PROV_ASSIGN(auto node, inventory::getNode(*ctx.db, id));
  PROV_ASSIGN(auto profile, inventory::profileForModel(*ctx.db, node.hardware_model));
  inventory::AgentTaskSpec spec;
  spec.node_id = id;
  spec.kind = "burn_in";
  PROV_ASSIGN(spec.spec_json, planFor(in, profile ? &*profile : nullptr));
  PROV_ASSIGN(auto batch, in.optionalString("batch", 128));
  spec.batch = batch && !trimmed(*batch).empty()
                   ? trimmed(*batch)
                   : inventory::defaultBurnInBatch(node, std::chrono::system_clock::now());
  spec.expected_gpus =
      profile && profile->expected_gpus > 0 ? profile->expected_gpus : node.gpu_count;
  PROV_ASSIGN(auto task, inventory::createAgentTask(*ctx.db, spec, actorOf(req)));
  return http::jsonResponse(201, toJson(task));
}

Result<Response> listNodeTasks(const ApiContext& ctx, const Request& req) {
  PROV_ASSIGN(auto id, idParam(req, "id"));
  PROV_TRY(inventory::getNode(*ctx.db, id));
  PROV_ASSIGN(auto tasks, inventory::listTasksForNode(*ctx.db, id));
  nlohmann::json items = nlohmann::json::array();
  for (const auto& t : tasks) items.push_back(toJson(t));
  return http::jsonResponse(200, {{"items", items}, {"next_cursor", nullptr}});
}

Result<Response> getTask(const ApiContext& ctx, const Request& req) {
  PROV_ASSIGN(auto id, idParam(req, "id"));
  PROV_ASSIGN(auto task, inventory::getAgentTask(*ctx.db, id));
  PROV_ASSIGN(auto results, inventory::taskResults(*ctx.db, id));
  auto body = toJson(task);
  nlohmann::json items = nlohmann::json::array();
  for (const auto& r : results) items.push_back(toJson(r));
  body["results"] = items;
  return http::jsonResponse(200, body);
}

Result<Response> cancelTask(const ApiContext& ctx, const Request& req) {
  PROV_ASSIGN(auto id, idParam(req, "id"));
  PROV_ASSIGN(auto body, http::parseJsonObject(req.body.empty() ? "{}" : req.body));
  http::FieldReader in(body);
  PROV_ASSIGN(auto reason, in.optionalString("reason", 1024));
  PROV_ASSIGN(auto task,
              inventory::cancelAgentTask(*ctx.db, id, actorOf(req), reason.value_or("")));
  return http::jsonResponse(200, toJson(task));
}

Result<Response> gpuHistory(const ApiContext& ctx, const Request& req) {
  PROV_ASSIGN(auto history, inventory::gpuBurnInHistory(*ctx.db, req.pathParam("serial")));
  nlohmann::json items = nlohmann::json::array();
  for (const auto& r : history) items.push_back(toJson(r));
  return http::jsonResponse(200, {{"gpu_serial", req.pathParam("serial")}, {"items", items}});
}

}  // namespace

void addTaskRoutes(http::ApiServer& server, const ContextPtr& ctx) {
  using http::Method;
  using http::Permission;
  server.addRoute({Method::kPost, "/api/v1/nodes/{id}/boot-macs", "nodes.boot_macs.add",
                   Permission::kWriteNodes, withContext(ctx, addBootMacs)});
  server.addRoute({Method::kGet, "/api/v1/nodes/{id}/boot-macs", "nodes.boot_macs.list",
                   Permission::kReadInventory, withContext(ctx, listBootMacs)});
  server.addRoute({Method::kPost, "/api/v1/nodes/{id}/burn-in", "nodes.burn_in",
                   Permission::kOperateNodes, withContext(ctx, startBurnIn)});
  server.addRoute({Method::kGet, "/api/v1/nodes/{id}/tasks", "nodes.tasks",
                   Permission::kReadInventory, withContext(ctx, listNodeTasks)});
  server.addRoute({Method::kGet, "/api/v1/tasks/{id}", "tasks.get", Permission::kReadInventory,
                   withContext(ctx, getTask)});
  server.addRoute({Method::kPost, "/api/v1/tasks/{id}/cancel", "tasks.cancel",
                   Permission::kOperateNodes, withContext(ctx, cancelTask)});
  server.addRoute({Method::kGet, "/api/v1/gpus/{serial}/burn-in", "gpus.burn_in",
                   Permission::kReadInventory, withContext(ctx, gpuHistory)});
}

}  // namespace provisioner::api

// GPU health flags (docs/health.md, "Flags"): per GPU, per node and fleet-wide, filtered by
// state, rule and severity; operators acknowledge and clear them (who and when are stored with
// the flag and in the GPU's history; the request is in the audit log like every mutation).
#include <chrono>

#include <nlohmann/json.hpp>

#include "input.hpp"
#include "inventory/gpu_flags.hpp"
#include "json_views.hpp"
#include "provisioner/http/pagination.hpp"
#include "routes.hpp"
#include "workflows/clock.hpp"

namespace provisioner::api {
namespace {

namespace h = inventory::health;
using common::Result;
using http::Request;
using http::Response;
using nlohmann::json;

common::Error invalidField(const std::string& field, const std::string& message) {
  return common::invalidArgument("invalid_field", message, field);
}

json flagJson(const inventory::GpuFlag& f) {
  const auto evidence = json::parse(f.evidence_json, nullptr, false);
  return {{"id", f.id},
          {"serial", f.serial},
          {"rule", f.rule},
          {"severity", f.severity},
          {"action", f.action},
          {"state", f.state},
          {"reason", f.reason},
          {"evidence", evidence.is_discarded() ? json::object() : evidence},
          {"node_id", f.node_id ? json(*f.node_id) : json(nullptr)},
          {"evidence_at", f.evidence_at},
          {"raised_at", f.raised_at},
          {"acknowledged_at", textOrNull(f.acknowledged_at)},
          {"acknowledged_by", textOrNull(f.acknowledged_by)},
          {"acknowledge_note", textOrNull(f.acknowledge_note)},
          {"cleared_at", textOrNull(f.cleared_at)},
          {"cleared_by", textOrNull(f.cleared_by)},
          {"clear_note", textOrNull(f.clear_note)},
          {"action_at", textOrNull(f.action_at)},
          {"released_at", textOrNull(f.released_at)}};
}

Result<inventory::FlagFilter> filterOf(const Request& req) {
  inventory::FlagFilter f;
  if (auto state = req.query("state")) {
    if (*state != "open" && *state != "acknowledged" && *state != "cleared") {
      return invalidField("state", "state must be open, acknowledged or cleared");
    }
    f.state = *state;
  }
  if (auto severity = req.query("severity")) {
    if (!h::flagSeverityNamed(*severity)) {
      return invalidField("severity", "severity must be info, warning or critical");
    }
    f.severity = *severity;
  }
  if (auto rule = req.query("rule")) {
    if (rule->empty() || rule->size() > 64)
      return invalidField("rule", "rule must be 1 to 64 characters");
    f.rule = *rule;
  }
  PROV_ASSIGN(f.page, pageRequest(req));
  return f;
}

Result<Response> listed(const ApiContext& ctx, inventory::FlagFilter filter) {
  const int limit = filter.page.limit;
  filter.page.limit = limit + 1;
  PROV_ASSIGN(auto flags, inventory::listFlags(*ctx.db, filter));
  auto flagId = [](const auto& f) { return f.id; };
  return http::jsonResponse(200, http::pageJson(std::move(flags), limit, flagId, flagJson));
}

// GET /api/v1/health/flags
Result<Response> fleetFlags(const ApiContext& ctx, const Request& req) {
  PROV_ASSIGN(auto filter, filterOf(req));
  return listed(ctx, std::move(filter));
}

// GET /api/v1/gpus/{serial}/flags
Result<Response> gpuFlags(const ApiContext& ctx, const Request& req) {
  const std::string serial = trimmed(req.pathParam("serial"));
  if (serial.empty() || serial.size() > 128) {
    return invalidField("serial", "serial must be 1 to 128 characters");
  }
  PROV_ASSIGN(auto filter, filterOf(req));
  filter.serial = serial;
  return listed(ctx, std::move(filter));
}

// GET /api/v1/nodes/{id}/flags
Result<Response> nodeFlags(const ApiContext& ctx, const Request& req) {
  PROV_ASSIGN(auto id, idParam(req, "id"));
  PROV_ASSIGN(auto filter, filterOf(req));
  filter.node_id = id;
  return listed(ctx, std::move(filter));
}

Result<std::string> noteOf(const Request& req) {
  PROV_ASSIGN(auto body, http::parseJsonObject(req.body.empty() ? "{}" : req.body));
  http::FieldReader in(body);
  PROV_ASSIGN(auto note, in.optionalString("note", 1024));
  return note ? trimmed(*note) : std::string();
}

// POST /api/v1/health/flags/{id}/acknowledge and /clear
Result<Response> flagAction(const ApiContext& ctx, const Request& req, bool clear) {
  PROV_ASSIGN(auto id, idParam(req, "id"));
  PROV_ASSIGN(auto note, noteOf(req));
  const std::string who = actorOf(req);
  PROV_ASSIGN(auto flag,
              clear ? inventory::clearFlag(*ctx.db, id, who, note, requestTime(ctx))
                    : inventory::acknowledgeFlag(*ctx.db, id, who, note, requestTime(ctx)));
  return http::jsonResponse(200, flagJson(flag));
}

}  // namespace

void addFlagRoutes(http::ApiServer& server, const ContextPtr& ctx) {
  using http::Method;
  using http::Permission;
  server.addRoute({Method::kGet, "/api/v1/health/flags", "health.flags", Permission::kReadInventory,
                   withContext(ctx, fleetFlags)});
  server.addRoute({Method::kGet, "/api/v1/gpus/{serial}/flags", "gpus.flags",
                   Permission::kReadInventory, withContext(ctx, gpuFlags)});
  server.addRoute({Method::kGet, "/api/v1/nodes/{id}/flags", "nodes.flags",
                   Permission::kReadInventory, withContext(ctx, nodeFlags)});
  server.addRoute({Method::kPost, "/api/v1/health/flags/{id}/acknowledge",
                   "health.flags.acknowledge", Permission::kOperateNodes,
                   withContext(ctx, [](const ApiContext& c, const Request& r) {
                     return flagAction(c, r, false);
                   })});
  server.addRoute({Method::kPost, "/api/v1/health/flags/{id}/clear", "health.flags.clear",
                   Permission::kOperateNodes,
                   withContext(ctx, [](const ApiContext& c, const Request& r) {
                     return flagAction(c, r, true);
                   })});
}

}  // namespace provisioner::api

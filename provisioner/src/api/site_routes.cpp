// Sites and racks: where hardware stands.
#include <nlohmann/json.hpp>

#include "input.hpp"
#include "inventory/nodes.hpp"
#include "inventory/sites.hpp"
#include "json_views.hpp"
#include "routes.hpp"

namespace provisioner::api {
namespace {

using common::Result;
using http::Request;
using http::Response;

Result<Response> createSite(const ApiContext& ctx, const Request& req) {
  PROV_ASSIGN(auto body, http::parseJsonObject(req.body));
  http::FieldReader in(body);
  PROV_ASSIGN(auto name, requiredText(in, "name", 128));
  PROV_ASSIGN(auto description, in.optionalString("description", 1024));
  PROV_ASSIGN(auto site, inventory::createSite(*ctx.db, name, description.value_or("")));
  return http::jsonResponse(201, toJson(site));
}

Result<Response> listSites(const ApiContext& ctx, const Request&) {
  PROV_ASSIGN(auto sites, inventory::listSites(*ctx.db));
  nlohmann::json items = nlohmann::json::array();
  for (const auto& s : sites) items.push_back(toJson(s));
  return http::jsonResponse(200, {{"items", items}, {"next_cursor", nullptr}});
}

Result<inventory::RackSpec> readRack(const http::FieldReader& in) {
  inventory::RackSpec spec;
  PROV_ASSIGN(spec.site, requiredText(in, "site", 128));
  PROV_ASSIGN(spec.name, requiredText(in, "name", 128));
  PROV_ASSIGN(auto room, in.optionalString("room", 128));
  PROV_ASSIGN(auto row, in.optionalString("row", 128));
  spec.room = trimmed(room.value_or(""));
  spec.row = trimmed(row.value_or(""));
  if (!spec.row.empty() && spec.room.empty()) {
    return common::fail(
        common::invalidArgument("invalid_field", "a row needs a room", in.pathOf("room")));
  }
  PROV_ASSIGN(auto height, in.optionalInt("u_height", 1, 60));
  spec.u_height = static_cast<int>(height.value_or(42));
  return spec;
}

Result<Response> createRack(const ApiContext& ctx, const Request& req) {
  PROV_ASSIGN(auto body, http::parseJsonObject(req.body));
  PROV_ASSIGN(auto spec, readRack(http::FieldReader(body)));
  PROV_ASSIGN(auto rack, inventory::createRack(*ctx.db, spec));
  return http::jsonResponse(201, toJson(rack));
}

Result<Response> listRacks(const ApiContext& ctx, const Request& req) {
  PROV_ASSIGN(auto page, pageRequest(req));
  PROV_ASSIGN(auto racks, inventory::listRacks(*ctx.db, req.query("site").value_or(""), page));
  return http::jsonResponse(200, pageJson(racks));
}

Result<Response> getRack(const ApiContext& ctx, const Request& req) {
  PROV_ASSIGN(auto id, idParam(req, "id"));
  PROV_ASSIGN(auto rack, inventory::getRack(*ctx.db, id));
  return http::jsonResponse(200, toJson(rack));
}

Result<Response> listRackNodes(const ApiContext& ctx, const Request& req) {
  PROV_ASSIGN(auto id, idParam(req, "id"));
  PROV_ASSIGN(auto rack, inventory::getRack(*ctx.db, id));
  inventory::NodeFilter filter;
  filter.site = rack.site;
  filter.rack = rack.name;
  PROV_ASSIGN(filter.page, pageRequest(req));
  PROV_ASSIGN(auto nodes, inventory::listNodes(*ctx.db, filter));
  return http::jsonResponse(200, pageJson(nodes));
}

}  // namespace

void addSiteRoutes(http::ApiServer& server, const ContextPtr& ctx) {
  using http::Method;
  using http::Permission;
  server.addRoute({Method::kPost, "/api/v1/sites", "sites.create", Permission::kWriteSites,
                   withContext(ctx, createSite)});
  server.addRoute({Method::kGet, "/api/v1/sites", "sites.list", Permission::kReadInventory,
                   withContext(ctx, listSites)});
  server.addRoute({Method::kPost, "/api/v1/racks", "racks.create", Permission::kWriteSites,
                   withContext(ctx, createRack)});
  server.addRoute({Method::kGet, "/api/v1/racks", "racks.list", Permission::kReadInventory,
                   withContext(ctx, listRacks)});
  server.addRoute({Method::kGet, "/api/v1/racks/{id}", "racks.get", Permission::kReadInventory,
                   withContext(ctx, getRack)});
  server.addRoute({Method::kGet, "/api/v1/racks/{id}/nodes", "racks.nodes",
                   Permission::kReadInventory, withContext(ctx, listRackNodes)});
}

}  // namespace provisioner::api

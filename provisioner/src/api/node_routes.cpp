// Nodes: registration, listing and CSV export, detail with components and timeline, component
// reports (which keep the history), and state changes.
#include <nlohmann/json.hpp>

#include "common/mac_address.hpp"
#include "input.hpp"
#include "inventory/nodes.hpp"
#include "json_views.hpp"
#include "provisioner/http/csv.hpp"
#include "routes.hpp"

namespace provisioner::api {
namespace {

using common::Result;
using http::Request;
using http::Response;

constexpr int kExportPageSize = 1000;

Result<inventory::NodeSpec> readNode(const http::FieldReader& in) {
  inventory::NodeSpec spec;
  PROV_ASSIGN(spec.chassis_serial, requiredText(in, "chassis_serial", 128));
  PROV_ASSIGN(auto model, in.optionalString("hardware_model", 256));
  spec.hardware_model = trimmed(model.value_or(""));
  PROV_ASSIGN(auto address, in.optionalString("bmc_address", 256));
  spec.bmc_address = trimmed(address.value_or(""));
  PROV_ASSIGN(auto mac, in.optionalString("bmc_mac", 64));
  if (mac && !trimmed(*mac).empty()) {
    auto normal = common::normalizeMac(*mac);
    if (!normal) return common::fail(std::move(normal).error().withField(in.pathOf("bmc_mac")));
    spec.bmc_mac = *normal;
  }
  PROV_ASSIGN(spec.rack_id, in.optionalInt("rack_id", 1));
  PROV_ASSIGN(auto u, in.optionalInt("u_position", 1, 60));
  if (u) spec.u_position = static_cast<int>(*u);
  if (spec.u_position && !spec.rack_id) {
    return common::fail(common::invalidArgument("invalid_field", "u_position needs a rack_id",
                                                in.pathOf("u_position")));
  }
  PROV_ASSIGN(auto state, in.optionalString("state", 32));
  if (state) {
    if (!inventory::isNodeState(*state)) {
      return common::fail(common::invalidArgument(
          "invalid_field", "unknown node state '" + *state + "'", in.pathOf("state")));
    }
    spec.state = *state;
  }
  return spec;
}

Result<inventory::ObservedComponent> readComponent(const http::FieldReader& in) {
  inventory::ObservedComponent c;
  PROV_ASSIGN(c.kind, requiredText(in, "kind", 32));
  if (!inventory::isComponentKind(c.kind)) {
    return common::fail(common::invalidArgument(
        "invalid_field", "unknown component kind '" + c.kind + "'", in.pathOf("kind")));
  }
  PROV_ASSIGN(c.serial, requiredText(in, "serial", 128));
  PROV_ASSIGN(auto slot, in.optionalString("slot", 128));
  PROV_ASSIGN(auto manufacturer, in.optionalString("manufacturer", 128));
  PROV_ASSIGN(auto model, in.optionalString("model", 256));
  PROV_ASSIGN(auto part, in.optionalString("part_number", 128));
  PROV_ASSIGN(auto firmware, in.optionalString("firmware_version", 128));
  c.slot = trimmed(slot.value_or(""));
  c.manufacturer = trimmed(manufacturer.value_or(""));
  c.model = trimmed(model.value_or(""));
  c.part_number = trimmed(part.value_or(""));
  c.firmware_version = trimmed(firmware.value_or(""));
  return c;
}

Result<inventory::ComponentReport> readReport(const http::FieldReader& in, std::string actor) {
  inventory::ComponentReport report;
  report.actor = std::move(actor);
  if (!in.has("components")) {
    return common::fail(common::invalidArgument("missing_field", "components is required",
                                                in.pathOf("components")));
  }
  PROV_ASSIGN(auto readers, in.arrayOfObjects("components"));
  for (const auto& r : readers) {
    PROV_ASSIGN(auto c, readComponent(r));
    report.components.push_back(std::move(c));
  }
  PROV_ASSIGN(auto reason, in.optionalString("reason", 32));
  report.reason = reason.value_or("inventory");
  if (report.reason != "inventory" && report.reason != "rma") {
    return common::fail(common::invalidArgument("invalid_field", "reason must be inventory or rma",
                                                in.pathOf("reason")));
  }
  PROV_ASSIGN(auto ticket, in.optionalString("rma_ticket", 128));
  report.rma_ticket = trimmed(ticket.value_or(""));
  return report;
}

Result<inventory::NodeFilter> readFilter(const Request& req) {
  inventory::NodeFilter f;
  f.state = req.query("state").value_or("");
  if (!f.state.empty() && !inventory::isNodeState(f.state)) {
    return common::fail(
        common::invalidArgument("invalid_field", "unknown node state '" + f.state + "'", "state"));
  }
  f.model = req.query("model").value_or("");
  f.site = req.query("site").value_or("");
  f.rack = req.query("rack").value_or("");
  f.firmware_version = req.query("firmware").value_or("");
  PROV_ASSIGN(f.page, pageRequest(req));
  return f;
}

bool wantsCsv(const Request& req) {
  return req.query("format").value_or("") == "csv" ||
         req.header("Accept").find("text/csv") != std::string::npos;
}

std::vector<std::string> csvRow(const inventory::Node& n) {
  return {std::to_string(n.id),
          n.chassis_serial,
          n.state,
          n.hardware_model,
          n.site,
          n.rack,
          n.u_position ? std::to_string(*n.u_position) : "",
          n.bmc_address,
          n.bmc_mac,
          std::to_string(n.gpu_count),
          n.updated_at};
}

// Every matching node, paged through the inventory so memory stays bounded per page.
Result<Response> exportNodes(const ApiContext& ctx, inventory::NodeFilter filter) {
  http::CsvWriter csv;
  csv.addRow({"id", "chassis_serial", "state", "hardware_model", "site", "rack", "u_position",
              "bmc_address", "bmc_mac", "gpu_count", "updated_at"});
  filter.page = {0, kExportPageSize};
  while (true) {
    PROV_ASSIGN(auto page, inventory::listNodes(*ctx.db, filter));
    for (const auto& n : page.items) csv.addRow(csvRow(n));
    if (!page.next_after) break;
    filter.page.after = *page.next_after;
  }
  Response r;
  r.content_type = "text/csv; charset=utf-8";
  r.body = csv.release();
  r.headers.emplace_back("Content-Disposition", "attachment; filename=\"nodes.csv\"");
  return r;
}

Result<Response> listNodes(const ApiContext& ctx, const Request& req) {
  PROV_ASSIGN(auto filter, readFilter(req));
  if (wantsCsv(req)) return exportNodes(ctx, std::move(filter));
  PROV_ASSIGN(auto page, inventory::listNodes(*ctx.db, filter));
  return http::jsonResponse(200, pageJson(page));
}

Result<Response> createNode(const ApiContext& ctx, const Request& req) {
  PROV_ASSIGN(auto body, http::parseJsonObject(req.body));
  PROV_ASSIGN(auto spec, readNode(http::FieldReader(body)));
  PROV_ASSIGN(auto node, inventory::createNode(*ctx.db, spec, actorOf(req)));
  return http::jsonResponse(201, toJson(node));
}

Result<Response> getNode(const ApiContext& ctx, const Request& req) {
  PROV_ASSIGN(auto id, idParam(req, "id"));
  PROV_ASSIGN(auto detail, inventory::getNodeDetail(*ctx.db, id));
  return http::jsonResponse(200, toJson(detail));
}

Result<Response> reportComponents(const ApiContext& ctx, const Request& req) {
  PROV_ASSIGN(auto id, idParam(req, "id"));
  PROV_ASSIGN(auto body, http::parseJsonObject(req.body));
  PROV_ASSIGN(auto report, readReport(http::FieldReader(body), actorOf(req)));
  PROV_ASSIGN(auto outcome, inventory::reportComponents(*ctx.db, id, report));
  return http::jsonResponse(200, toJson(outcome));
}

Result<Response> changeState(const ApiContext& ctx, const Request& req) {
  PROV_ASSIGN(auto id, idParam(req, "id"));
  PROV_ASSIGN(auto body, http::parseJsonObject(req.body));
  http::FieldReader in(body);
  PROV_ASSIGN(auto state, requiredText(in, "state", 32));
  if (!inventory::isNodeState(state)) {
    return common::fail(common::invalidArgument(
        "invalid_field", "unknown node state '" + state + "'", in.pathOf("state")));
  }
  PROV_ASSIGN(auto reason, in.optionalString("reason", 1024));
  PROV_ASSIGN(auto node,
              inventory::setNodeState(*ctx.db, id, state, actorOf(req), reason.value_or("")));
  return http::jsonResponse(200, toJson(node));
}

}  // namespace

void addNodeRoutes(http::ApiServer& server, const ContextPtr& ctx) {
  using http::Method;
  using http::Permission;
  server.addRoute({Method::kPost, "/api/v1/nodes", "nodes.create", Permission::kWriteNodes,
                   withContext(ctx, createNode)});
  server.addRoute({Method::kGet, "/api/v1/nodes", "nodes.list", Permission::kReadInventory,
                   withContext(ctx, listNodes)});
  server.addRoute({Method::kGet, "/api/v1/nodes/{id}", "nodes.get", Permission::kReadInventory,
                   withContext(ctx, getNode)});
  server.addRoute({Method::kPut, "/api/v1/nodes/{id}/components", "nodes.components",
                   Permission::kWriteNodes, withContext(ctx, reportComponents)});
  server.addRoute({Method::kPost, "/api/v1/nodes/{id}/state", "nodes.state",
                   Permission::kWriteNodes, withContext(ctx, changeState)});
}

}  // namespace provisioner::api

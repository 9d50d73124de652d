// End of life (issue 12 section 6): what became of an asset after it left service (RMA, spare,
// redeploy, recycled), and per purchase order and model how many units are retired, under RMA,
// spares or recycled.
#include "disposition_views.hpp"

#include <nlohmann/json.hpp>

#include "input.hpp"
#include "routes.hpp"

namespace provisioner::api {
namespace {

using common::Result;
using http::Request;
using http::Response;
using nlohmann::json;

Result<std::string> optionalText(const http::FieldReader& in, std::string_view name) {
  PROV_ASSIGN(auto v, in.optionalString(name, 256));
  return v ? trimmed(*v) : std::string();
}

// JSON numbers only; inventory::validateDisposition judges the value.
Result<std::optional<double>> optionalWeight(const http::FieldReader& in) {
  if (!in.has("weight_kg")) return std::optional<double>();
  const json& v = in.json()["weight_kg"];
  if (!v.is_number()) {
    return common::fail(common::invalidArgument(
        "invalid_field", "weight_kg must be a number of kilograms", in.pathOf("weight_kg")));
  }
  return std::optional<double>(v.get<double>());
}

Result<inventory::DispositionSpec> readSpec(const Request& req) {
  PROV_ASSIGN(auto body, http::parseJsonObject(req.body));
  http::FieldReader in(body);
  inventory::DispositionSpec spec;
  spec.serial = req.pathParam("serial");
  PROV_ASSIGN(spec.disposition, in.requiredString("disposition", 32));
  PROV_ASSIGN(spec.rma_ticket, optionalText(in, "rma_ticket"));
  PROV_ASSIGN(spec.rma_vendor, optionalText(in, "rma_vendor"));
  PROV_ASSIGN(spec.shipped_on, optionalText(in, "shipped_on"));
  PROV_ASSIGN(spec.replacement_serial, optionalText(in, "replacement_serial"));
  PROV_ASSIGN(spec.recycler, optionalText(in, "recycler"));
  PROV_ASSIGN(spec.recycler_certificate, optionalText(in, "recycler_certificate"));
  PROV_ASSIGN(spec.weight_kg, optionalWeight(in));
  PROV_ASSIGN(auto note, in.optionalString("note", 4096));
  spec.note = note.value_or("");
  spec.recorded_by = actorOf(req);
  return spec;
}

Result<Response> recordDisposition(const ApiContext& ctx, const Request& req) {
  PROV_ASSIGN(auto spec, readSpec(req));
  PROV_ASSIGN(auto recorded, inventory::recordDisposition(*ctx.db, spec));
  return http::jsonResponse(201, toJson(recorded));
}

Result<Response> endOfLife(const ApiContext& ctx, const Request& req) {
  const std::string& po = req.pathParam("po_number");
  PROV_ASSIGN(auto counts, inventory::endOfLifeCounts(*ctx.db, po));
  json models = json::array();
  constexpr const char* kColumns[] = {"units", "retired", "rma", "spare", "redeploy", "recycled"};
  json totals = json::object();
  for (const char* key : kColumns) totals[key] = 0;
  for (const auto& c : counts) {
    json row = {{"model", c.model},      {"units", c.units}, {"retired", c.retired},
                {"rma", c.rma},          {"spare", c.spare}, {"redeploy", c.redeploy},
                {"recycled", c.recycled}};
    for (const char* key : kColumns) totals[key] = totals[key].get<int>() + row[key].get<int>();
    models.push_back(std::move(row));
  }
  return http::jsonResponse(200, {{"po_number", po}, {"models", models}, {"totals", totals}});
}

}  // namespace

void addDispositionRoutes(http::ApiServer& server, const ContextPtr& ctx) {
  using http::Method;
  using http::Permission;
  server.addRoute({Method::kPost, "/api/v1/assets/{serial}/disposition", "assets.disposition",
                   Permission::kOperateNodes, withContext(ctx, recordDisposition)});
  server.addRoute({Method::kGet, "/api/v1/purchase-orders/{po_number}/end-of-life",
                   "purchase_orders.end_of_life", Permission::kReadInventory,
                   withContext(ctx, endOfLife)});
}

}  // namespace provisioner::api

// Procurement: purchase orders as JSON and as advance ship notices (CSV), and reconciliation.
#include <algorithm>
#include <nlohmann/json.hpp>

#include "input.hpp"
#include "json_views.hpp"
#include "provisioner/api/ship_notice.hpp"
#include "routes.hpp"

namespace provisioner::api {
namespace {

using common::Result;
using http::Method;
using http::Permission;
using http::Request;
using http::Response;

constexpr std::string_view kStatuses[] = {"open", "closed", "cancelled"};

Result<inventory::PurchaseOrderSpec> readPurchaseOrder(const http::FieldReader& in) {
  inventory::PurchaseOrderSpec spec;
  PROV_ASSIGN(spec.po_number, requiredText(in, "po_number", 128));
  PROV_ASSIGN(spec.vendor, requiredText(in, "vendor"));
  PROV_ASSIGN(spec.line_items, readLineItems(in, "line_items"));
  PROV_ASSIGN(spec.assets, readExpectedAssets(in, "assets", /*require_model=*/true));
  return spec;
}

Result<std::optional<std::string>> readStatus(const http::FieldReader& in) {
  PROV_ASSIGN(auto status, in.optionalString("status", 32));
  if (status &&
      std::find(std::begin(kStatuses), std::end(kStatuses), *status) == std::end(kStatuses)) {
    return common::fail(common::invalidArgument(
        "invalid_field", "status must be open, closed or cancelled", in.pathOf("status")));
  }
  return status;
}

Result<inventory::PurchaseOrderAmendment> readAmendment(const http::FieldReader& in) {
  inventory::PurchaseOrderAmendment a;
  PROV_ASSIGN(a.vendor, in.optionalString("vendor", 256));
  PROV_ASSIGN(a.status, readStatus(in));
  PROV_ASSIGN(a.add_line_items, readLineItems(in, "add_line_items"));
  PROV_ASSIGN(a.add_assets, readExpectedAssets(in, "add_assets", /*require_model=*/true));
  PROV_ASSIGN(a.update_assets, readExpectedAssets(in, "update_assets", /*require_model=*/false));
  PROV_ASSIGN(a.remove_serials, in.arrayOfStrings("remove_serials", 128));
  return a;
}

Result<Response> createPurchaseOrder(const ApiContext& ctx, const Request& req) {
  PROV_ASSIGN(auto body, http::parseJsonObject(req.body));
  PROV_ASSIGN(auto spec, readPurchaseOrder(http::FieldReader(body)));
  PROV_ASSIGN(auto po, inventory::createPurchaseOrder(*ctx.db, *ctx.secrets, spec));
  return http::jsonResponse(201, toJson(po));
}

Result<Response> importShipNotice(const ApiContext& ctx, const Request& req) {
  inventory::PurchaseOrderSpec spec;
  spec.po_number = trimmed(req.query("po_number").value_or(""));
  spec.vendor = trimmed(req.query("vendor").value_or(""));
  if (spec.po_number.empty()) {
    return common::fail(common::invalidArgument(
        "missing_field", "query parameter po_number is required", "po_number"));
  }
  if (spec.vendor.empty()) {
    return common::fail(
        common::invalidArgument("missing_field", "query parameter vendor is required", "vendor"));
  }
  PROV_ASSIGN(spec.assets, parseShipNotice(req.body));
  PROV_ASSIGN(auto po, inventory::importShipNotice(*ctx.db, *ctx.secrets, spec));
  return http::jsonResponse(201, toJson(po));
}

Result<Response> listPurchaseOrders(const ApiContext& ctx, const Request& req) {
  PROV_ASSIGN(auto page, pageRequest(req));
  PROV_ASSIGN(auto result, inventory::listPurchaseOrders(*ctx.db, page));
  return http::jsonResponse(200, pageJson(result));
}

Result<Response> getPurchaseOrder(const ApiContext& ctx, const Request& req) {
  PROV_ASSIGN(auto po, inventory::getPurchaseOrder(*ctx.db, req.pathParam("po_number")));
  return http::jsonResponse(200, toJson(po));
}

Result<Response> amendPurchaseOrder(const ApiContext& ctx, const Request& req) {
  PROV_ASSIGN(auto body, http::parseJsonObject(req.body));
  PROV_ASSIGN(auto amendment, readAmendment(http::FieldReader(body)));
  PROV_ASSIGN(auto po, inventory::amendPurchaseOrder(*ctx.db, *ctx.secrets,
                                                     req.pathParam("po_number"), amendment));
  return http::jsonResponse(200, toJson(po));
}

Result<Response> reconcilePurchaseOrder(const ApiContext& ctx, const Request& req) {
  PROV_ASSIGN(auto report, inventory::reconcile(*ctx.db, req.pathParam("po_number")));
  return http::jsonResponse(200, toJson(report));
}

}  // namespace

void addPurchaseOrderRoutes(http::ApiServer& server, const ContextPtr& ctx) {
  const std::string base = "/api/v1/purchase-orders";
  server.addRoute({Method::kPost, base, "purchase_orders.create", Permission::kWritePurchaseOrders,
                   withContext(ctx, createPurchaseOrder)});
  server.addRoute({Method::kPost,
                   base + "/import",
                   "purchase_orders.import",
                   Permission::kWritePurchaseOrders,
                   withContext(ctx, importShipNotice),
                   {"text/csv"}});
  server.addRoute({Method::kGet, base, "purchase_orders.list", Permission::kReadInventory,
                   withContext(ctx, listPurchaseOrders)});
  server.addRoute({Method::kGet, base + "/{po_number}", "purchase_orders.get",
                   Permission::kReadInventory, withContext(ctx, getPurchaseOrder)});
  server.addRoute({Method::kPatch, base + "/{po_number}", "purchase_orders.amend",
                   Permission::kWritePurchaseOrders, withContext(ctx, amendPurchaseOrder)});
  server.addRoute({Method::kGet, base + "/{po_number}/reconciliation",
                   "purchase_orders.reconciliation", Permission::kReadInventory,
                   withContext(ctx, reconcilePurchaseOrder)});
}

}  // namespace provisioner::api

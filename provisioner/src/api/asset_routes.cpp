// Asset team: any serial -> where it is, its state, firmware, full history and end of life.
#include <nlohmann/json.hpp>

#include "disposition_views.hpp"
#include "inventory/dispositions.hpp"
#include "json_views.hpp"
#include "routes.hpp"

namespace provisioner::api {
namespace {

common::Result<http::Response> getAsset(const ApiContext& ctx, const http::Request& req) {
  PROV_ASSIGN(auto asset, inventory::lookupAsset(*ctx.db, req.pathParam("serial")));
  PROV_ASSIGN(auto dispositions, inventory::dispositionHistory(*ctx.db, asset.serial));
  auto out = toJson(asset);
  addDispositions(out, dispositions);
  return http::jsonResponse(200, out);
}

}  // namespace

void addAssetRoutes(http::ApiServer& server, const ContextPtr& ctx) {
  server.addRoute({http::Method::kGet, "/api/v1/assets/{serial}", "assets.get",
                   http::Permission::kReadInventory, withContext(ctx, getAsset)});
}

}  // namespace provisioner::api

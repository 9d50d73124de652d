// Asset team: any serial -> where it is, its state, firmware and full history.
#include <nlohmann/json.hpp>

#include "json_views.hpp"
#include "routes.hpp"

namespace provisioner::api {
namespace {

common::Result<http::Response> getAsset(const ApiContext& ctx, const http::Request& req) {
  PROV_ASSIGN(auto asset, inventory::lookupAsset(*ctx.db, req.pathParam("serial")));
  return http::jsonResponse(200, toJson(asset));
}

}  // namespace

void addAssetRoutes(http::ApiServer& server, const ContextPtr& ctx) {
  server.addRoute({http::Method::kGet, "/api/v1/assets/{serial}", "assets.get",
                   http::Permission::kReadInventory, withContext(ctx, getAsset)});
}

}  // namespace provisioner::api

#include "routes.hpp"

namespace provisioner::api {

void registerRoutes(http::ApiServer& server, const ApiContext& context) {
  auto ctx = std::make_shared<const ApiContext>(context);
  addServiceRoutes(server, ctx);
  addPurchaseOrderRoutes(server, ctx);
  addAssetRoutes(server, ctx);
  addSiteRoutes(server, ctx);
  addNodeRoutes(server, ctx);
  addAdminRoutes(server, ctx);
}

}  // namespace provisioner::api

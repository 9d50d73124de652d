#include "routes.hpp"

namespace provisioner::api {

void registerRoutes(http::ApiServer& server, const ApiContext& context) {
  auto ctx = std::make_shared<const ApiContext>(context);
  addServiceRoutes(server, ctx);
  addPurchaseOrderRoutes(server, ctx);
  addAssetRoutes(server, ctx);
  addSiteRoutes(server, ctx);
  addNodeRoutes(server, ctx);
  addNodeLabelRoutes(server, ctx);
  addFirmwarePackageRoutes(server, ctx);
  addBaselineRoutes(server, ctx);
  addComplianceRoutes(server, ctx);
  addAdminRoutes(server, ctx);
  addImageRoutes(server, ctx);
  addChannelRoutes(server, ctx);
  addProfileRoutes(server, ctx);
  addBootRoutes(server, ctx);
  addTaskRoutes(server, ctx);
  addAgentRoutes(server, ctx);
  addDiscoveryRoutes(server, ctx);
  addRedfishEventRoutes(server, ctx);
  addWorkflowRoutes(server, ctx);
  addCampaignRoutes(server, ctx);
  addHealthRoutes(server, ctx);
  addFlagRoutes(server, ctx);
  addCredentialRoutes(server, ctx);
  addResidentTaskRoutes(server, ctx);
  addDecommissionRoutes(server, ctx);
  addCertificateRoutes(server, ctx);
  addDispositionRoutes(server, ctx);
}

}  // namespace provisioner::api

// The route groups of REST API v1; registerRoutes() (register.cpp) adds them all.
#pragma once

#include <memory>

#include "provisioner/api/api.hpp"

namespace provisioner::api {

using ContextPtr = std::shared_ptr<const ApiContext>;
using ContextHandler = common::Result<http::Response> (*)(const ApiContext&, const http::Request&);

// A route handler bound to the shared context (which lives as long as any handler).
inline http::Handler withContext(const ContextPtr& ctx, ContextHandler fn) {
  return [ctx, fn](const http::Request& request) { return fn(*ctx, request); };
}

void addServiceRoutes(http::ApiServer& server, const ContextPtr& ctx);
void addPurchaseOrderRoutes(http::ApiServer& server, const ContextPtr& ctx);
void addAssetRoutes(http::ApiServer& server, const ContextPtr& ctx);
void addSiteRoutes(http::ApiServer& server, const ContextPtr& ctx);
void addNodeRoutes(http::ApiServer& server, const ContextPtr& ctx);
void addNodeLabelRoutes(http::ApiServer& server, const ContextPtr& ctx);
void addFirmwarePackageRoutes(http::ApiServer& server, const ContextPtr& ctx);
void addBaselineRoutes(http::ApiServer& server, const ContextPtr& ctx);
void addComplianceRoutes(http::ApiServer& server, const ContextPtr& ctx);
void addAdminRoutes(http::ApiServer& server, const ContextPtr& ctx);
void addImageRoutes(http::ApiServer& server, const ContextPtr& ctx);
void addChannelRoutes(http::ApiServer& server, const ContextPtr& ctx);
void addProfileRoutes(http::ApiServer& server, const ContextPtr& ctx);
void addBootRoutes(http::ApiServer& server, const ContextPtr& ctx);
void addTaskRoutes(http::ApiServer& server, const ContextPtr& ctx);
void addAgentRoutes(http::ApiServer& server, const ContextPtr& ctx);
void addDiscoveryRoutes(http::ApiServer& server, const ContextPtr& ctx);
void addRedfishEventRoutes(http::ApiServer& server, const ContextPtr& ctx);
void addWorkflowRoutes(http::ApiServer& server, const ContextPtr& ctx);
void addCampaignRoutes(http::ApiServer& server, const ContextPtr& ctx);
void addHealthRoutes(http::ApiServer& server, const ContextPtr& ctx);
void addFlagRoutes(http::ApiServer& server, const ContextPtr& ctx);
void addCredentialRoutes(http::ApiServer& server, const ContextPtr& ctx);
void addResidentTaskRoutes(http::ApiServer& server, const ContextPtr& ctx);
void addDecommissionRoutes(http::ApiServer& server, const ContextPtr& ctx);
void addCertificateRoutes(http::ApiServer& server, const ContextPtr& ctx);
void addDispositionRoutes(http::ApiServer& server, const ContextPtr& ctx);

}  // namespace provisioner::api

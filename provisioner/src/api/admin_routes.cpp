// Administration: the audit log and API tokens.
#include <nlohmann/json.hpp>

#include "input.hpp"
#include "inventory/access.hpp"
#include "json_views.hpp"
#include "provisioner/http/rbac.hpp"
#include "routes.hpp"

namespace provisioner::api {
namespace {

using common::Result;
using http::Request;
using http::Response;

Result<Response> listAudit(const ApiContext& ctx, const Request& req) {
  PROV_ASSIGN(auto page, pageRequest(req));
  PROV_ASSIGN(auto entries, inventory::listAudit(*ctx.db, page));
  return http::jsonResponse(200, pageJson(entries));
}

Result<Response> createToken(const ApiContext& ctx, const Request& req) {
  PROV_ASSIGN(auto body, http::parseJsonObject(req.body));
  http::FieldReader in(body);
  PROV_ASSIGN(auto name, requiredText(in, "name", 128));
  PROV_ASSIGN(auto role_text, requiredText(in, "role", 32));
  PROV_ASSIGN(auto role, http::parseRole(role_text));
  PROV_ASSIGN(auto issued, issueToken(*ctx.db, name, std::string(http::toString(role))));
  nlohmann::json j = toJson(issued.token);
  j["token"] = issued.secret;
  return http::jsonResponse(201, j);
}

Result<Response> listTokens(const ApiContext& ctx, const Request&) {
  PROV_ASSIGN(auto tokens, inventory::listTokens(*ctx.db));
  nlohmann::json items = nlohmann::json::array();
  for (const auto& t : tokens) items.push_back(toJson(t));
  return http::jsonResponse(200, {{"items", items}, {"next_cursor", nullptr}});
}

Result<Response> revokeToken(const ApiContext& ctx, const Request& req) {
  PROV_ASSIGN(auto id, idParam(req, "id"));
  PROV_ASSIGN(auto token, inventory::revokeToken(*ctx.db, id));
  if (ctx.token_cache) ctx.token_cache->clear();
  return http::jsonResponse(200, toJson(token));
}

}  // namespace

void addAdminRoutes(http::ApiServer& server, const ContextPtr& ctx) {
  using http::Method;
  using http::Permission;
  server.addRoute({Method::kGet, "/api/v1/audit", "audit.list", Permission::kReadAudit,
                   withContext(ctx, listAudit)});
  server.addRoute({Method::kPost, "/api/v1/tokens", "tokens.create", Permission::kManageTokens,
                   withContext(ctx, createToken)});
  server.addRoute({Method::kGet, "/api/v1/tokens", "tokens.list", Permission::kManageTokens,
                   withContext(ctx, listTokens)});
  server.addRoute({Method::kDelete, "/api/v1/tokens/{id}", "tokens.revoke",
                   Permission::kManageTokens, withContext(ctx, revokeToken)});
}

}  // namespace provisioner::api

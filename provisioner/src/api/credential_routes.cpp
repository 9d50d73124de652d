// The resident agent's monitor credential (docs/health.md, "The monitor credential"): the agent
// enrolls with its burn-in session token and rotates with its current credential; operators list
// a node's credentials, ask for a rotation, or revoke at once. Secrets are in answers only, never
// logged or stored.
#include <nlohmann/json.hpp>

#include "agent_auth.hpp"
#include "input.hpp"
#include "inventory/node_credentials.hpp"
#include "json_views.hpp"
#include "routes.hpp"

namespace provisioner::api {
namespace {

using common::Result;
using http::Request;
using http::Response;
using nlohmann::json;

json issuedJson(inventory::Id node_id, const MintedCredential& minted) {
  return {{"node_id", node_id}, {"credential_id", minted.id}, {"credential", minted.secret}};
}

json credentialJson(const inventory::NodeCredentialRecord& c) {
  return {{"id", c.id},
          {"node_id", c.node_id},
          {"task_id", c.task_id ? json(*c.task_id) : json(nullptr)},
          {"predecessor_id", c.predecessor_id ? json(*c.predecessor_id) : json(nullptr)},
          {"issued_at", c.issued_at},
          {"first_used_at", textOrNull(c.first_used_at)},
          {"rotate_requested_at", textOrNull(c.rotate_requested_at)},
          {"revoked_at", textOrNull(c.revoked_at)},
          {"revoked_reason", textOrNull(c.revoked_reason)},
          {"live", c.revoked_at.empty()}};
}

// POST /api/v1/agent/nodes/{node_id}/credential (the burn-in task's session token). A retry
// after a lost answer enrolls again and revokes the first: the agent keeps what it last got.
Result<Response> enroll(const ApiContext& ctx, const Request& req) {
  PROV_ASSIGN(auto node_id, idParam(req, "node_id"));
  PROV_ASSIGN(auto grant, authorizeAgent(*ctx.db, req, node_id, kSessionToken));
  PROV_ASSIGN(auto minted, mintNodeCredential([&](const std::string& hash) {
                return inventory::enrollNodeCredential(*ctx.db, node_id, grant.task_id, hash);
              }));
  return http::jsonResponse(201, issuedJson(node_id, minted));
}

// POST /api/v1/agent/nodes/{node_id}/credential/rotate (the current credential).
Result<Response> rotate(const ApiContext& ctx, const Request& req) {
  PROV_ASSIGN(auto node_id, idParam(req, "node_id"));
  // The store checks the presented credential, in the transaction that rotates it.
  PROV_ASSIGN(auto presented, monitorCredentialOf(req));
  PROV_ASSIGN(auto minted, mintNodeCredential([&](const std::string& hash) {
                return inventory::rotateNodeCredential(*ctx.db, common::sha256Hex(presented),
                                                       node_id, hash);
              }));
  return http::jsonResponse(201, issuedJson(node_id, minted));
}

// GET /api/v1/nodes/{id}/credentials
Result<Response> list(const ApiContext& ctx, const Request& req) {
  PROV_ASSIGN(auto node_id, idParam(req, "id"));
  PROV_ASSIGN(auto credentials, inventory::listNodeCredentials(*ctx.db, node_id));
  json items = json::array();
  for (const auto& c : credentials) items.push_back(credentialJson(c));
  return http::jsonResponse(200, {{"items", items}});
}

// POST /api/v1/nodes/{id}/credential/rotate: the agent is told in its next batch's answer.
Result<Response> requestRotation(const ApiContext& ctx, const Request& req) {
  PROV_ASSIGN(auto node_id, idParam(req, "id"));
  PROV_ASSIGN(auto marked, inventory::requestNodeCredentialRotation(*ctx.db, node_id));
  return http::jsonResponse(202, {{"node_id", node_id}, {"credentials_marked", marked}});
}

// POST /api/v1/nodes/{id}/credential/revoke: at once; the node reports nothing until it is
// provisioned again (its next burn-in enrolls it).
Result<Response> revoke(const ApiContext& ctx, const Request& req) {
  PROV_ASSIGN(auto node_id, idParam(req, "id"));
  PROV_ASSIGN(auto revoked, inventory::revokeNodeCredentials(
                                *ctx.db, node_id, inventory::kCredentialRevokedByOperator));
  return http::jsonResponse(200, {{"node_id", node_id}, {"revoked", revoked}});
}

}  // namespace

void addCredentialRoutes(http::ApiServer& server, const ContextPtr& ctx) {
  using http::Method;
  using http::Permission;
  server.addRoute({Method::kPost, "/api/v1/agent/nodes/{node_id}/credential",
                   "agent.credential.enroll", Permission::kPublic, withContext(ctx, enroll)});
  server.addRoute({Method::kPost, "/api/v1/agent/nodes/{node_id}/credential/rotate",
                   "agent.credential.rotate", Permission::kPublic, withContext(ctx, rotate)});
  server.addRoute({Method::kGet, "/api/v1/nodes/{id}/credentials", "nodes.credentials",
                   Permission::kReadInventory, withContext(ctx, list)});
  server.addRoute({Method::kPost, "/api/v1/nodes/{id}/credential/rotate", "nodes.credential.rotate",
                   Permission::kOperateNodes, withContext(ctx, requestRotation)});
  server.addRoute({Method::kPost, "/api/v1/nodes/{id}/credential/revoke", "nodes.credential.revoke",
                   Permission::kOperateNodes, withContext(ctx, revoke)});
}

}  // namespace provisioner::api

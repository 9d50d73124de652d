#include "agent_auth.hpp"

#include "common/secret_box.hpp"
#include "secret_token.hpp"

namespace provisioner::api {
namespace {

constexpr std::string_view kAgentTokenPrefix = "agt_";

}  // namespace

common::Result<std::string> mintAgentToken(inventory::Database& db, inventory::Id node_id,
                                           inventory::Id task_id, const std::string& kind,
                                           int ttl_seconds) {
  std::string secret = newSecretToken(kAgentTokenPrefix);
  PROV_TRY(inventory::issueAgentToken(
      db, {node_id, task_id, kind, common::sha256Hex(secret), ttl_seconds}));
  return secret;
}

common::Result<inventory::AgentTokenGrant> authorizeAgent(inventory::Database& db,
                                                          const http::Request& request,
                                                          inventory::Id node_id,
                                                          const std::string& kind) {
  const std::string token(http::bearerToken(request.header("Authorization")));
  if (token.empty()) {
    common::Error e = common::unauthenticated(
        "an 'Authorization: Bearer <agent token>' header "
        "is required");
    e.code = "agent_token_missing";
    return common::fail(std::move(e));
  }
  return inventory::checkAgentToken(db, common::sha256Hex(token), node_id, kind,
                                    /*consume=*/kind == kBootToken);
}

}  // namespace provisioner::api

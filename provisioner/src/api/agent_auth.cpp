#include "agent_auth.hpp"

#include <algorithm>

#include "common/secret_box.hpp"
#include "secret_token.hpp"

namespace provisioner::api {
namespace {

constexpr std::string_view kAgentTokenPrefix = "agt_";
constexpr std::string_view kNodeCredentialPrefix = "nmc_";

common::Error missingToken(const char* what) {
  common::Error e = common::unauthenticated(std::string("an 'Authorization: Bearer <") + what +
                                            ">' header is required");
  e.code = "agent_token_missing";
  return e;
}

// The agent's Idempotency-Key: the same for every attempt of one registration ("" when none).
common::Result<std::string> registrationKey(const http::Request& request) {
  std::string key(request.header("Idempotency-Key"));
  const bool printable =
      std::all_of(key.begin(), key.end(), [](unsigned char c) { return c > 0x20 && c < 0x7f; });
  if (key.size() > 200 || !printable) {
    return common::invalidArgument("invalid_idempotency_key",
                                   "Idempotency-Key must be at most 200 visible ASCII characters",
                                   "Idempotency-Key");
  }
  return key;
}

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
  if (token.empty()) return common::fail(missingToken("agent token"));
  const bool boot = kind == kBootToken;
  PROV_ASSIGN(auto key, registrationKey(request));
  return inventory::checkAgentToken(db, common::sha256Hex(token), node_id, kind,
                                    /*consume=*/boot,
                                    boot && !key.empty() ? common::sha256Hex(key) : "");
}

common::Result<MintedCredential> mintNodeCredential(
    const std::function<common::Result<inventory::Id>(const std::string& hash)>& store) {
  MintedCredential minted{newSecretToken(kNodeCredentialPrefix), 0};
  PROV_ASSIGN(minted.id, store(common::sha256Hex(minted.secret)));
  return minted;
}

common::Result<std::string> monitorCredentialOf(const http::Request& request) {
  std::string token(http::bearerToken(request.header("Authorization")));
  if (token.empty()) return common::fail(missingToken("node credential"));
  return token;
}

common::Result<inventory::NodeCredentialGrant> authorizeMonitor(inventory::Database& db,
                                                                const http::Request& request,
                                                                inventory::Id node_id) {
  PROV_ASSIGN(auto token, monitorCredentialOf(request));
  return inventory::checkNodeCredential(db, common::sha256Hex(token), node_id);
}

common::Result<inventory::NodeCredentialGrant> authorizeHealthReporter(inventory::Database& db,
                                                                       const http::Request& request,
                                                                       inventory::Id node_id) {
  const std::string token(http::bearerToken(request.header("Authorization")));
  if (!token.starts_with(kAgentTokenPrefix)) return authorizeMonitor(db, request, node_id);
  PROV_ASSIGN(auto grant, authorizeAgent(db, request, node_id, kSessionToken));
  return inventory::NodeCredentialGrant{0, grant.node_id, false};
}

}  // namespace provisioner::api

#include "agent_auth.hpp"

#include "common/secret_box.hpp"

namespace provisioner::api {
namespace {

constexpr std::string_view kAgentTokenPrefix = "agt_";

// URL-safe, kernel-command-line-safe text: base64url without padding.
std::string secretText(const std::string& bytes) {
  std::string b64 = common::base64Encode(bytes);
  for (char& c : b64) {
    if (c == '+') c = '-';
    if (c == '/') c = '_';
  }
  while (!b64.empty() && b64.back() == '=') b64.pop_back();
  return std::string(kAgentTokenPrefix) + b64;
}

std::string bearerOf(const http::Request& request) {
  const std::string header = request.header("Authorization");
  constexpr std::string_view kScheme = "Bearer ";
  if (header.size() <= kScheme.size()) return {};
  for (std::size_t i = 0; i < kScheme.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(header[i])) !=
        std::tolower(static_cast<unsigned char>(kScheme[i]))) {
      return {};
    }
  }
  return header.substr(kScheme.size());
}

}  // namespace

common::Result<std::string> mintAgentToken(inventory::Database& db, inventory::Id node_id,
                                           inventory::Id task_id, const std::string& kind,
                                           int ttl_seconds) {
  std::string secret = secretText(common::randomBytes(32));
  PROV_TRY(inventory::issueAgentToken(
      db, {node_id, task_id, kind, common::sha256Hex(secret), ttl_seconds}));
  return secret;
}

common::Result<inventory::AgentTokenGrant> authorizeAgent(inventory::Database& db,
                                                          const http::Request& request,
                                                          inventory::Id node_id,
                                                          const std::string& kind) {
  const std::string token = bearerOf(request);
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

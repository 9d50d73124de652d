// Node-scoped agent tokens: minted for one node and task, presented as a bearer token, stored
// only as a SHA-256 hash.
#pragma once

#include <functional>
#include <string>

#include "common/result.hpp"
#include "inventory/agent_tasks.hpp"
#include "inventory/node_credentials.hpp"
#include "provisioner/http/request.hpp"

namespace provisioner::api {

inline constexpr const char* kBootToken = "boot";
inline constexpr const char* kSessionToken = "session";

// Stores the hash of a fresh 256-bit secret for (node, task, kind) and returns the secret.
common::Result<std::string> mintAgentToken(inventory::Database& db, inventory::Id node_id,
                                           inventory::Id task_id, const std::string& kind,
                                           int ttl_seconds);

// Checks the request's bearer token for a call about `node_id`; a boot token is used up by this.
common::Result<inventory::AgentTokenGrant> authorizeAgent(inventory::Database& db,
                                                          const http::Request& request,
                                                          inventory::Id node_id,
                                                          const std::string& kind);

// The resident agent's monitor credential (docs/health.md): a fresh secret whose hash
// `store(hash)` records; returns the secret and the stored id.
struct MintedCredential {
  std::string secret;
  inventory::Id id = 0;
};
common::Result<MintedCredential> mintNodeCredential(
    const std::function<common::Result<inventory::Id>(const std::string& hash)>& store);

// The request's bearer monitor credential; Unauthenticated "agent_token_missing" without one.
common::Result<std::string> monitorCredentialOf(const http::Request& request);

// Checks the request's bearer monitor credential for a call about `node_id`.
common::Result<inventory::NodeCredentialGrant> authorizeMonitor(inventory::Database& db,
                                                                const http::Request& request,
                                                                inventory::Id node_id);

// What the health ingest takes: the monitor credential (in service) or, by its prefix, a burn-in
// task's session token. The grant says whether a rotation is due (never for a session token).
common::Result<inventory::NodeCredentialGrant> authorizeHealthReporter(inventory::Database& db,
                                                                       const http::Request& request,
                                                                       inventory::Id node_id);

}  // namespace provisioner::api

// Node-scoped agent tokens: minted for one node and task, presented as a bearer token, stored
// only as a SHA-256 hash.
#pragma once

#include <string>

#include "common/result.hpp"
#include "inventory/agent_tasks.hpp"
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

}  // namespace provisioner::api

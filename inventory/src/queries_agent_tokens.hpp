// SQL of agent tokens: node-scoped, stored hashed, checked against the database clock.
#pragma once

#include "db.hpp"

namespace inventory::detail {

constexpr Query kSelectTaskOwner{"select_agent_task_owner",
                                 "SELECT node_id, state FROM agent_tasks WHERE id = $1"};
// The node rebooted into a new script: its earlier boot tokens that were never used go.
constexpr Query kRevokeUnusedBootTokens{"revoke_unused_boot_tokens", R"(
  UPDATE agent_tokens SET revoked_at = now()
   WHERE node_id = $1 AND kind = 'boot' AND used_at IS NULL AND revoked_at IS NULL)"};
constexpr Query kInsertAgentToken{"insert_agent_token", R"(
  INSERT INTO agent_tokens (token_hash, node_id, task_id, kind, expires_at)
  VALUES ($1, $2, $3, $4, now() + make_interval(secs => $5::double precision)))"};
// Checks and marks used in one statement: of two racing uses, the second one re-reads the row
// after the first commits and no longer matches. $4, the hash of the user's registration key
// (or NULL): a use by the same key again matches (a retried registration), keeping the first
// use's time.
constexpr Query kConsumeAgentToken{"consume_agent_token", R"(
  UPDATE agent_tokens SET used_at = coalesce(used_at, now()), used_by = $4
   WHERE token_hash = $1 AND node_id = $2 AND kind = $3
     AND (used_at IS NULL OR used_by = $4) AND revoked_at IS NULL AND expires_at > now()
  RETURNING node_id, task_id)"};
// Everything a failed or read-only check needs to name the reason.
constexpr Query kSelectAgentTokenStatus{"select_agent_token_status", R"(
  SELECT node_id, task_id, kind, used_at IS NOT NULL, revoked_at IS NOT NULL,
         expires_at <= now()
    FROM agent_tokens WHERE token_hash = $1)"};
// A finished task keeps its session token until it expires: an agent that retries its result
// after a lost answer then learns "task_not_open" instead of a bare refusal.
constexpr Query kRevokeUnusedTaskBootTokens{"revoke_unused_task_boot_tokens", R"(
  UPDATE agent_tokens SET revoked_at = now()
   WHERE task_id = $1 AND kind = 'boot' AND used_at IS NULL AND revoked_at IS NULL)"};
constexpr Query kRevokeTaskTokens{"revoke_task_tokens", R"(
  UPDATE agent_tokens SET revoked_at = now() WHERE task_id = $1 AND revoked_at IS NULL)"};

}  // namespace inventory::detail

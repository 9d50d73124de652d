// SQL of the resident agent's node credentials (migrations/0014_node_credentials.sql).
#pragma once

#include "db.hpp"

namespace inventory::detail {

constexpr Query kSelectEnrollingTask{"select_enrolling_task", R"(
  SELECT t.node_id, t.state, t.kind, n.state
    FROM agent_tasks t JOIN nodes n ON n.id = t.node_id
   WHERE t.id = $1
     FOR UPDATE OF n)"};
constexpr Query kRevokeLiveNodeCredentials{"revoke_live_node_credentials", R"(
  UPDATE node_credentials SET revoked_at = now(), revoked_reason = $2
   WHERE node_id = $1 AND revoked_at IS NULL)"};
constexpr Query kInsertNodeCredential{"insert_node_credential", R"(
  INSERT INTO node_credentials (node_id, token_hash, task_id, predecessor_id)
  VALUES ($1, $2, $3, $4) RETURNING id)"};
// Everything a check needs in one index lookup (the hot path: every health batch).
// The last column: whether the node has open resident tasks (the batch's answer lists them).
#define INVENTORY_NODE_CREDENTIAL_CHECK                                      \
  "SELECT id, node_id, revoked_at IS NOT NULL, first_used_at IS NULL,"       \
  " rotate_requested_at IS NOT NULL, EXISTS (SELECT 1 FROM resident_tasks r" \
  " WHERE r.node_id = node_credentials.node_id AND r.finished_at IS NULL)"   \
  " FROM node_credentials WHERE token_hash = $1"
constexpr Query kSelectNodeCredential{"select_node_credential", INVENTORY_NODE_CREDENTIAL_CHECK};
// The same, holding the row: two racing rotations of one credential leave one live successor.
constexpr Query kLockNodeCredential{"lock_node_credential",
                                    INVENTORY_NODE_CREDENTIAL_CHECK " FOR UPDATE"};
// The first use of a credential: of two racing first uses, one matches.
constexpr Query kMarkNodeCredentialUsed{"mark_node_credential_used", R"(
  UPDATE node_credentials SET first_used_at = now()
   WHERE id = $1 AND first_used_at IS NULL AND revoked_at IS NULL
  RETURNING predecessor_id)"};
constexpr Query kRevokeNodeCredential{"revoke_node_credential", R"(
  UPDATE node_credentials SET revoked_at = now(), revoked_reason = $2
   WHERE id = $1 AND revoked_at IS NULL)"};
// A rotation's earlier successors that were never used.
constexpr Query kRevokeUnusedSuccessors{"revoke_unused_node_credential_successors", R"(
  UPDATE node_credentials SET revoked_at = now(), revoked_reason = 'superseded'
   WHERE predecessor_id = $1 AND first_used_at IS NULL AND revoked_at IS NULL)"};
constexpr Query kRequestNodeCredentialRotation{"request_node_credential_rotation", R"(
  UPDATE node_credentials SET rotate_requested_at = coalesce(rotate_requested_at, now())
   WHERE node_id = $1 AND revoked_at IS NULL)"};
constexpr Query kNodeExists{"node_credentials_node_exists", "SELECT 1 FROM nodes WHERE id = $1"};
constexpr Query kListNodeCredentials{"list_node_credentials", R"(
  SELECT id, node_id, task_id, predecessor_id, iso8601(issued_at), iso8601(first_used_at),
         iso8601(rotate_requested_at), iso8601(revoked_at), revoked_reason
    FROM node_credentials WHERE node_id = $1 ORDER BY id DESC)"};

}  // namespace inventory::detail

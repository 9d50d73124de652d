// The resident agent's node-scoped credential (docs/health.md, "The monitor credential"): issued
// to the agent at the end of its burn-in, used for every health batch of the node's life in
// service, rotated in two phases, revoked by an operator or by decommissioning. Only the SHA-256
// of the secret is stored.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "inventory/database.hpp"
#include "inventory/types.hpp"

namespace inventory {

struct NodeCredentialGrant {
  Id credential_id = 0;
  Id node_id = 0;
  // An operator asked for a rotation that the agent has not completed: tell it.
  bool rotate_requested = false;
  // The node has resident tasks not yet finished (inventory/resident_tasks.hpp): hand them over.
  bool has_open_tasks = false;
};

// Why a credential was revoked.
inline constexpr const char* kCredentialRotated = "rotated";        // its successor was used
inline constexpr const char* kCredentialSuperseded = "superseded";  // a newer successor issued
inline constexpr const char* kCredentialReEnrolled = "re_enrolled";
inline constexpr const char* kCredentialRevokedByOperator = "operator";
inline constexpr const char* kCredentialDecommissioned = "decommissioned";

// Enrolls the agent of burn-in task `task_id` (open, of kind burn_in, of this node): stores the
// hash of its new credential and revokes the node's earlier ones ("re_enrolled"). Errors: NotFound
// "task_not_found"; InvalidArgument "task_node_mismatch"; Conflict "task_not_open",
// "task_not_burn_in", "node_not_in_service" (decommissioning, decommission_failed, retired).
common::Result<Id> enrollNodeCredential(Database& db, Id node_id, Id task_id,
                                        const std::string& token_hash);

// Checks a presented credential for a call about `node_id`. The first use of a rotation's
// successor revokes its predecessor ("rotated"), in the same transaction. Errors: Unauthenticated
// "credential_unknown", "credential_revoked"; PermissionDenied "credential_wrong_node".
common::Result<NodeCredentialGrant> checkNodeCredential(Database& db, const std::string& token_hash,
                                                        Id node_id);

// The agent's half of a rotation: the presented credential (checked as above) gets a successor
// with hash `successor_hash`; successors of it issued earlier and never used are revoked
// ("superseded"), so a retried rotation leaves one. The presented credential stays valid until the
// successor is first used. Checked and rotated in one transaction holding the presented row;
// errors as checkNodeCredential's.
common::Result<Id> rotateNodeCredential(Database& db, const std::string& presented_hash, Id node_id,
                                        const std::string& successor_hash);

// The operator's half: marks the node's live credentials for rotation. NotFound
// "node_not_found", "node_credential_not_found" (no live credential). Returns how many.
common::Result<int> requestNodeCredentialRotation(Database& db, Id node_id);

// Revokes every live credential of the node at once (`reason`: kCredentialRevokedByOperator or
// kCredentialDecommissioned). NotFound "node_not_found". Returns how many; 0 is not an error.
common::Result<int> revokeNodeCredentials(Database& db, Id node_id, const std::string& reason);

struct NodeCredentialRecord {
  Id id = 0;
  Id node_id = 0;
  std::optional<Id> task_id;
  std::optional<Id> predecessor_id;
  std::string issued_at;  // ISO-8601 UTC, as every timestamp of the inventory
  std::string first_used_at;
  std::string rotate_requested_at;
  std::string revoked_at;
  std::string revoked_reason;
};

// The node's credentials, newest first (never the hashes). NotFound "node_not_found".
common::Result<std::vector<NodeCredentialRecord>> listNodeCredentials(Database& db, Id node_id);

}  // namespace inventory

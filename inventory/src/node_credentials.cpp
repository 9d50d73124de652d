// The resident agent's node credentials: enrolment by a burn-in task, checks on the hot path of
// every health batch (one index lookup; a write only at a credential's first use), two-phase
// rotation and immediate revocation.
#include "inventory/node_credentials.hpp"

#include "catalog_values.hpp"
#include "db.hpp"
#include "node_rows.hpp"
#include "queries_node_credentials.hpp"

namespace inventory {
namespace {

using detail::Tx;

common::Result<void> requireHash(const std::string& token_hash) {
  if (detail::isSha256Hex(token_hash)) return common::success();
  return common::invalidArgument("invalid_token_hash",
                                 "token_hash must be 64 lower-case hex digits", "token_hash");
}

common::Result<void> requireEnrollingTask(Tx& tx, Id node_id, Id task_id) {
  auto rows = tx.exec(detail::kSelectEnrollingTask, task_id);
  if (rows.empty()) return detail::taskNotFound(task_id);
  if (detail::id(rows[0][0]) != node_id) {
    return common::invalidArgument("task_node_mismatch", "the task belongs to another node",
                                   "task_id");
  }
  const std::string state = detail::text(rows[0][1]);
  if (state != "pending" && state != "running") {
    return common::conflict("task_not_open", "task " + std::to_string(task_id) + " is " + state);
  }
  if (detail::text(rows[0][2]) != "burn_in") {
    return common::conflict("task_not_burn_in",
                            "only a burn-in task's agent enrolls for a monitor credential");
  }
  const std::string node_state = detail::text(rows[0][3]);
  if (isLeavingFleet(node_state)) {
    return common::conflict("node_not_in_service", "node " + std::to_string(node_id) + " is " +
                                                       node_state + ": no monitor credential");
  }
  return common::success();
}

// Node before revocation, so another node's credential reveals nothing about its state.
// `query`: kSelectNodeCredential, or kLockNodeCredential to hold the row.
common::Result<NodeCredentialGrant> check(Tx& tx, const detail::Query& query,
                                          const std::string& token_hash, Id node_id,
                                          bool& first_use) {
  auto rows = tx.exec(query, token_hash);
  if (rows.empty()) {
    return detail::unauthenticatedAs("credential_unknown", "the node credential is not known");
  }
  const auto& row = rows[0];
  if (detail::id(row[1]) != node_id) {
    return common::Error{common::ErrorKind::kPermissionDenied,
                         "credential_wrong_node",
                         "the node credential belongs to another node",
                         "node_id",
                         {}};
  }
  if (row[2].as<bool>()) {
    return detail::unauthenticatedAs("credential_revoked", "the node credential was revoked");
  }
  first_use = row[3].as<bool>();
  return NodeCredentialGrant{detail::id(row[0]), node_id, row[4].as<bool>(), row[5].as<bool>()};
}

// A successor's first use ends its predecessor.
void completeRotation(Tx& tx, Id credential_id) {
  auto used = tx.exec(detail::kMarkNodeCredentialUsed, credential_id);
  if (used.empty() || used[0][0].is_null()) return;
  tx.exec(detail::kRevokeNodeCredential, detail::id(used[0][0]), std::string(kCredentialRotated));
}

common::Result<void> requireNode(Tx& tx, Id node_id) {
  if (tx.exec(detail::kNodeExists, node_id).empty()) return detail::nodeNotFound(node_id);
  return common::success();
}

NodeCredentialRecord recordFromRow(const pqxx::row& row) {
  NodeCredentialRecord r;
  r.id = detail::id(row[0]);
  r.node_id = detail::id(row[1]);
  r.task_id = detail::optId(row[2]);
  r.predecessor_id = detail::optId(row[3]);
  r.issued_at = detail::text(row[4]);
  r.first_used_at = detail::text(row[5]);
  r.rotate_requested_at = detail::text(row[6]);
  r.revoked_at = detail::text(row[7]);
  r.revoked_reason = detail::text(row[8]);
  return r;
}

}  // namespace

common::Result<Id> enrollNodeCredential(Database& db, Id node_id, Id task_id,
                                        const std::string& token_hash) {
  PROV_TRY(requireHash(token_hash));
  return detail::withTransaction(db, "enroll_node_credential", [&](Tx& tx) -> common::Result<Id> {
    PROV_TRY(requireEnrollingTask(tx, node_id, task_id));
    tx.exec(detail::kRevokeLiveNodeCredentials, node_id, std::string(kCredentialReEnrolled));
    auto rows =
        tx.exec(detail::kInsertNodeCredential, node_id, token_hash, task_id, std::optional<Id>());
    return detail::id(rows[0][0]);
  });
}

common::Result<NodeCredentialGrant> checkNodeCredential(Database& db, const std::string& token_hash,
                                                        Id node_id) {
  if (!detail::isSha256Hex(token_hash)) {
    return detail::unauthenticatedAs("credential_unknown", "the node credential is not known");
  }
  bool first_use = false;
  auto grant = detail::withRead(
      db, "check_node_credential", [&](Tx& tx) -> common::Result<NodeCredentialGrant> {
        return check(tx, detail::kSelectNodeCredential, token_hash, node_id, first_use);
      });
  if (!grant || !first_use) return grant;
  return detail::withTransaction(
      db, "first_use_node_credential", [&](Tx& tx) -> common::Result<NodeCredentialGrant> {
        PROV_ASSIGN(auto g,
                    check(tx, detail::kSelectNodeCredential, token_hash, node_id, first_use));
        completeRotation(tx, g.credential_id);
        return g;
      });
}

common::Result<Id> rotateNodeCredential(Database& db, const std::string& presented_hash, Id node_id,
                                        const std::string& successor_hash) {
  PROV_TRY(requireHash(successor_hash));
  if (!detail::isSha256Hex(presented_hash)) {
    return detail::unauthenticatedAs("credential_unknown", "the node credential is not known");
  }
  return detail::withTransaction(db, "rotate_node_credential", [&](Tx& tx) -> common::Result<Id> {
    // Checked holding the row: a revocation or a racing rotation that committed first wins.
    bool first_use = false;
    PROV_ASSIGN(auto grant,
                check(tx, detail::kLockNodeCredential, presented_hash, node_id, first_use));
    if (first_use) completeRotation(tx, grant.credential_id);
    tx.exec(detail::kRevokeUnusedSuccessors, grant.credential_id);
    auto rows = tx.exec(detail::kInsertNodeCredential, node_id, successor_hash, std::optional<Id>(),
                        grant.credential_id);
    return detail::id(rows[0][0]);
  });
}

common::Result<int> requestNodeCredentialRotation(Database& db, Id node_id) {
  return detail::withTransaction(
      db, "request_node_credential_rotation", [&](Tx& tx) -> common::Result<int> {
        PROV_TRY(requireNode(tx, node_id));
        auto n = tx.exec(detail::kRequestNodeCredentialRotation, node_id).affected_rows();
        if (n == 0) {
          return common::notFound(
              "node_credential_not_found",
              "node " + std::to_string(node_id) + " has no live monitor credential to rotate");
        }
        return static_cast<int>(n);
      });
}

common::Result<int> revokeNodeCredentials(Database& db, Id node_id, const std::string& reason) {
  if (reason != kCredentialRevokedByOperator && reason != kCredentialDecommissioned) {
    return common::invalidArgument("invalid_reason", "reason must be operator or decommissioned",
                                   "reason");
  }
  return detail::withTransaction(db, "revoke_node_credentials", [&](Tx& tx) -> common::Result<int> {
    PROV_TRY(requireNode(tx, node_id));
    return static_cast<int>(
        tx.exec(detail::kRevokeLiveNodeCredentials, node_id, reason).affected_rows());
  });
}

common::Result<std::vector<NodeCredentialRecord>> listNodeCredentials(Database& db, Id node_id) {
  return detail::withRead(db, "list_node_credentials",
                          [&](Tx& tx) -> common::Result<std::vector<NodeCredentialRecord>> {
                            PROV_TRY(requireNode(tx, node_id));
                            std::vector<NodeCredentialRecord> out;
                            for (const auto& row : tx.exec(detail::kListNodeCredentials, node_id)) {
                              out.push_back(recordFromRow(row));
                            }
                            return out;
                          });
}

}  // namespace inventory

// Agent tokens: issued per node and task, checked (and for boot tokens consumed) atomically,
// with expiry on the database clock.
#include "agent_rows.hpp"
#include "catalog_values.hpp"
#include "db.hpp"
#include "inventory/agent_tasks.hpp"
#include "queries_agent_tokens.hpp"

namespace inventory {
namespace {

using detail::Tx;

common::Result<void> validateTokenSpec(const AgentTokenSpec& spec) {
  if (spec.kind != "boot" && spec.kind != "session") {
    return common::invalidArgument("invalid_token_kind", "token kind must be boot or session",
                                   "kind");
  }
  if (!detail::isSha256Hex(spec.token_hash)) {
    return common::invalidArgument("invalid_token_hash",
                                   "token_hash must be 64 lower-case hex digits", "token_hash");
  }
  return common::success();
}

common::Result<void> requireTaskOfNode(Tx& tx, const AgentTokenSpec& spec) {
  auto rows = tx.exec(detail::kSelectTaskOwner, spec.task_id);
  if (rows.empty()) return detail::taskNotFound(spec.task_id);
  if (detail::id(rows[0][0]) != spec.node_id) {
    return common::invalidArgument("task_node_mismatch", "the task belongs to another node",
                                   "task_id");
  }
  std::string state = rows[0][1].c_str();
  if (state != "pending" && state != "running") {
    return common::conflict("task_not_open",
                            "task " + std::to_string(spec.task_id) + " is " + state);
  }
  return common::success();
}

// Why a token row does not grant the call (nullopt: it does). Node before kind so that another
// node's token reveals nothing about itself; used before revoked because finishing a task revokes
// the boot token its agent already used.
std::optional<common::Error> refusal(const pqxx::row& row, Id node_id, const std::string& kind) {
  if (detail::id(row[0]) != node_id) {
    return common::Error{common::ErrorKind::kPermissionDenied,
                         "agent_token_wrong_node",
                         "the agent token belongs to another node",
                         "node_id",
                         {}};
  }
  if (std::string_view(row[2].c_str()) != kind) {
    return detail::unauthenticatedAs("agent_token_wrong_kind",
                                     "the agent token is not a " + kind + " token");
  }
  if (row[3].as<bool>()) {
    return detail::unauthenticatedAs("agent_token_used", "the agent token was already used");
  }
  if (row[4].as<bool>()) {
    return detail::unauthenticatedAs("agent_token_revoked", "the agent token was revoked");
  }
  if (row[5].as<bool>()) {
    return detail::unauthenticatedAs("agent_token_expired", "the agent token has expired");
  }
  return std::nullopt;
}

common::Result<AgentTokenGrant> diagnose(Tx& tx, const std::string& token_hash, Id node_id,
                                         const std::string& kind) {
  auto rows = tx.exec(detail::kSelectAgentTokenStatus, token_hash);
  if (rows.empty()) {
    return detail::unauthenticatedAs("agent_token_unknown", "the agent token is not known");
  }
  if (auto why = refusal(rows[0], node_id, kind)) return std::move(*why);
  return AgentTokenGrant{detail::id(rows[0][0]), detail::id(rows[0][1])};
}

}  // namespace

common::Result<void> issueAgentToken(Database& db, const AgentTokenSpec& spec) {
  PROV_TRY(validateTokenSpec(spec));
  // Zero or less is "already expired": one second in the past, whatever the clock's resolution.
  const double ttl = spec.ttl_seconds > 0 ? spec.ttl_seconds : -1.0;
  return detail::withTransaction(db, "issue_agent_token", [&](Tx& tx) -> common::Result<void> {
    PROV_TRY(requireTaskOfNode(tx, spec));
    if (spec.kind == "boot") tx.exec(detail::kRevokeUnusedBootTokens, spec.node_id);
    tx.exec(detail::kInsertAgentToken, spec.token_hash, spec.node_id, spec.task_id, spec.kind, ttl);
    return common::success();
  });
}

common::Result<AgentTokenGrant> checkAgentToken(Database& db, const std::string& token_hash,
                                                Id node_id, const std::string& kind, bool consume,
                                                const std::string& used_by) {
  if (!used_by.empty() && !detail::isSha256Hex(used_by)) {
    return common::invalidArgument("invalid_used_by", "used_by must be 64 lower-case hex digits",
                                   "used_by");
  }
  const auto key = used_by.empty() ? std::optional<std::string>() : std::optional(used_by);
  if (!consume) {
    return detail::withRead(db, "check_agent_token",
                            [&](Tx& tx) -> common::Result<AgentTokenGrant> {
                              return diagnose(tx, token_hash, node_id, kind);
                            });
  }
  return detail::withTransaction(
      db, "consume_agent_token", [&](Tx& tx) -> common::Result<AgentTokenGrant> {
        auto used = tx.exec(detail::kConsumeAgentToken, token_hash, node_id, kind, key);
        if (!used.empty()) return AgentTokenGrant{detail::id(used[0][0]), detail::id(used[0][1])};
        auto grant = diagnose(tx, token_hash, node_id, kind);
        if (grant) {  // nothing wrong with the row now: a racing use got there first
          return detail::unauthenticatedAs("agent_token_used", "the agent token was already used");
        }
        return grant;
      });
}

common::Result<void> revokeTaskTokens(Database& db, Id task_id) {
  return detail::withTransaction(db, "revoke_task_tokens", [&](Tx& tx) -> common::Result<void> {
    tx.exec(detail::kRevokeTaskTokens, task_id);
    return common::success();
  });
}

}  // namespace inventory

// SQL of API tokens, the audit log, and the pool's health check.
#pragma once

#include "db.hpp"

namespace inventory::detail {

constexpr Query kPing{"ping", "SELECT 1"};

#define INVENTORY_TOKEN_COLUMNS "id, name, role, iso8601(created_at), iso8601(revoked_at)"

constexpr Query kInsertToken{"insert_token",
                             "INSERT INTO api_tokens (name, role, token_hash) VALUES ($1, $2, $3) "
                             "RETURNING " INVENTORY_TOKEN_COLUMNS};
constexpr Query kSelectTokenByHash{"select_token_by_hash",
                                   "SELECT " INVENTORY_TOKEN_COLUMNS
                                   " FROM api_tokens WHERE token_hash = $1"};
constexpr Query kSelectTokens{"select_tokens",
                              "SELECT " INVENTORY_TOKEN_COLUMNS " FROM api_tokens ORDER BY id"};
// Revoking twice keeps the first revocation time.
constexpr Query kRevokeToken{"revoke_token",
                             "UPDATE api_tokens SET revoked_at = coalesce(revoked_at, now()) "
                             "WHERE id = $1 RETURNING " INVENTORY_TOKEN_COLUMNS};

#undef INVENTORY_TOKEN_COLUMNS

constexpr Query kInsertAudit{"insert_audit", R"(
  INSERT INTO audit_log (token_id, actor, role, method, path, action, request_id, status, outcome,
                         detail)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::jsonb))"};
// Newest first; $1 = 0 starts from the newest.
constexpr Query kSelectAuditPage{"select_audit_page", R"(
  SELECT id, iso8601(at), token_id, actor, role, method, path, action, request_id, status,
         outcome, detail::text
    FROM audit_log
   WHERE ($1::bigint = 0 OR id < $1::bigint)
   ORDER BY id DESC
   LIMIT $2)"};

}  // namespace inventory::detail

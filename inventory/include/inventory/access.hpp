// API tokens (only hashes are stored) and the audit log of mutating requests.
#pragma once

#include <optional>

#include "common/result.hpp"
#include "inventory/database.hpp"
#include "inventory/types.hpp"

namespace inventory {

struct ApiToken {
  Id id = 0;
  std::string name;
  std::string role;
  Timestamp created_at;
  std::optional<Timestamp> revoked_at;
};

// Duplicate hash is Conflict (never expected: hashes of 256-bit random tokens).
common::Result<ApiToken> createToken(Database& db, const std::string& name, const std::string& role,
                                     const std::string& token_hash);
// The token with this hash, revoked or not; NotFound "token_not_found" when none.
common::Result<ApiToken> findTokenByHash(Database& db, const std::string& token_hash);
common::Result<std::vector<ApiToken>> listTokens(Database& db);
// NotFound "token_not_found"; revoking twice is harmless.
common::Result<ApiToken> revokeToken(Database& db, Id id);

struct AuditEntry {
  Id id = 0;
  Timestamp at;
  std::optional<Id> token_id;
  std::string actor;  // token name, or "anonymous"
  std::string role;
  std::string method;
  std::string path;
  std::string action;  // route name, e.g. "purchase_orders.create"
  std::string request_id;
  int status = 0;
  std::string outcome;  // "success", or the problem code
  std::string detail_json = "{}";
};

common::Result<void> appendAudit(Database& db, const AuditEntry& entry);
// Newest first; page.after is the id to continue below (0: from the newest).
common::Result<Page<AuditEntry>> listAudit(Database& db, PageRequest page);

}  // namespace inventory

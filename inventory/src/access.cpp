#include "inventory/access.hpp"

#include <algorithm>

#include "db.hpp"
#include "queries_access.hpp"
#include "values.hpp"

namespace inventory {
namespace {

using detail::Tx;

constexpr std::string_view kRoles[] = {"viewer", "procurement", "asset", "operator", "admin"};

ApiToken tokenFromRow(const pqxx::row& row) {
  ApiToken t;
  t.id = detail::id(row[0]);
  t.name = row[1].c_str();
  t.role = row[2].c_str();
  t.created_at = row[3].c_str();
  if (!row[4].is_null()) t.revoked_at = row[4].c_str();
  return t;
}

common::Error tokenNotFound() {
  return common::notFound("token_not_found", "no such API token");
}

}  // namespace

common::Result<ApiToken> createToken(Database& db, const std::string& name, const std::string& role,
                                     const std::string& token_hash) {
  if (name.empty()) return common::invalidArgument("missing_field", "name is required", "name");
  if (std::find(std::begin(kRoles), std::end(kRoles), role) == std::end(kRoles)) {
    return common::invalidArgument(
        "invalid_role", "role must be viewer, procurement, asset, operator or admin", "role");
  }
  if (token_hash.empty()) {
    return common::invalidArgument("missing_field", "token hash is required", "token_hash");
  }
  return detail::withTransaction(db, "create_token", [&](Tx& tx) -> common::Result<ApiToken> {
    return tokenFromRow(tx.exec(detail::kInsertToken, name, role, token_hash)[0]);
  });
}

common::Result<ApiToken> findTokenByHash(Database& db, const std::string& token_hash) {
  return detail::withRead(db, "find_token", [&](Tx& tx) -> common::Result<ApiToken> {
    auto rows = tx.exec(detail::kSelectTokenByHash, token_hash);
    if (rows.empty()) return tokenNotFound();
    return tokenFromRow(rows[0]);
  });
}

common::Result<std::vector<ApiToken>> listTokens(Database& db) {
  return detail::withRead(db, "list_tokens", [&](Tx& tx) -> common::Result<std::vector<ApiToken>> {
    std::vector<ApiToken> tokens;
    for (const auto& row : tx.exec(detail::kSelectTokens)) tokens.push_back(tokenFromRow(row));
    return tokens;
  });
}

common::Result<ApiToken> revokeToken(Database& db, Id id) {
  return detail::withTransaction(db, "revoke_token", [&](Tx& tx) -> common::Result<ApiToken> {
    auto rows = tx.exec(detail::kRevokeToken, id);
    if (rows.empty()) return tokenNotFound();
    return tokenFromRow(rows[0]);
  });
}

common::Result<void> appendAudit(Database& db, const AuditEntry& e) {
  const std::string detail_json = e.detail_json.empty() ? std::string("{}") : e.detail_json;
  return detail::withTransaction(db, "append_audit", [&](Tx& tx) -> common::Result<void> {
    tx.exec(detail::kInsertAudit, e.token_id, e.actor, e.role, e.method, e.path, e.action,
            e.request_id, e.status, e.outcome, detail_json);
    return common::success();
  });
}

common::Result<Page<AuditEntry>> listAudit(Database& db, PageRequest page) {
  int limit = detail::clampLimit(page.limit);
  return detail::withRead(db, "list_audit", [&](Tx& tx) -> common::Result<Page<AuditEntry>> {
    std::vector<AuditEntry> entries;
    for (const auto& row : tx.exec(detail::kSelectAuditPage, page.after, limit + 1)) {
      AuditEntry a;
      a.id = detail::id(row[0]);
      a.at = row[1].c_str();
      a.token_id = detail::optId(row[2]);
      a.actor = row[3].c_str();
      a.role = row[4].c_str();
      a.method = row[5].c_str();
      a.path = row[6].c_str();
      a.action = row[7].c_str();
      a.request_id = row[8].c_str();
      a.status = row[9].as<int>();
      a.outcome = row[10].c_str();
      a.detail_json = row[11].c_str();
      entries.push_back(std::move(a));
    }
    return detail::makePage(std::move(entries), limit);
  });
}

}  // namespace inventory

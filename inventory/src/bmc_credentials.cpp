// Claimed BMC credentials: the only place a node's BMC secret is sealed and opened.
#include "inventory/bmc_credentials.hpp"

#include "db.hpp"
#include "node_rows.hpp"
#include "queries_bmc_credentials.hpp"
#include "queries_nodes.hpp"

namespace inventory {
namespace {

using detail::Tx;

common::Error noCredentials(Id node_id) {
  return common::notFound("bmc_credentials_not_found",
                          "no BMC credentials recorded for node " + std::to_string(node_id));
}

// A sealed value that does not open (wrong key, damaged row) names the column, never the value.
common::Result<std::string> openField(const common::SecretBox& box, const pqxx::field& field,
                                      const char* name) {
  auto opened = box.open(field.c_str());
  if (!opened) {
    return common::internalError(std::string("cannot open the sealed ") + name + ": " +
                                 opened.error().message);
  }
  return std::move(opened).value();
}

}  // namespace

common::Result<std::optional<BmcCredentials>> bmcCredentials(Database& db,
                                                             const common::SecretBox& box,
                                                             Id node_id) {
  using Found = std::optional<BmcCredentials>;
  return detail::withRead(db, "bmc_credentials", [&](Tx& tx) -> common::Result<Found> {
    auto rows = tx.exec(detail::kSelectBmcCredentials, node_id);
    if (rows.empty()) return Found();
    const auto& row = rows[0];
    BmcCredentials c;
    c.node_id = node_id;
    c.username = row[0].c_str();
    PROV_ASSIGN(c.password, openField(box, row[1], "BMC password"));
    if (!row[2].is_null()) {
      PROV_ASSIGN(auto pending, openField(box, row[2], "pending BMC password"));
      c.pending = std::move(pending);
    }
    c.tls_fingerprint = row[3].c_str();
    if (!row[4].is_null()) c.rotated_at = row[4].c_str();
    return Found(std::move(c));
  });
}

common::Result<void> recordPendingBmcPassword(Database& db, const common::SecretBox& box,
                                              Id node_id, const std::string& username,
                                              const std::string& current,
                                              const std::string& pending) {
  if (username.empty()) {
    return common::invalidArgument("missing_field", "username is required", "username");
  }
  PROV_ASSIGN(auto sealed_current, box.seal(current));
  PROV_ASSIGN(auto sealed_pending, box.seal(pending));
  return detail::withTransaction(db, "record_pending_bmc_password",
                                 [&](Tx& tx) -> common::Result<void> {
                                   if (tx.exec(detail::kNodeExists, node_id).empty())
                                     return detail::nodeNotFound(node_id);
                                   tx.exec(detail::kRecordPendingBmcPassword, node_id, username,
                                           sealed_current, sealed_pending);
                                   return common::success();
                                 });
}

common::Result<void> commitPendingBmcPassword(Database& db, Id node_id) {
  return detail::withTransaction(
      db, "commit_pending_bmc_password", [&](Tx& tx) -> common::Result<void> {
        if (!tx.exec(detail::kCommitPendingBmcPassword, node_id).empty()) {
          return common::success();
        }
        if (tx.exec(detail::kSelectBmcCredentialsRow, node_id).empty()) {
          return noCredentials(node_id);
        }
        return common::conflict(
            "no_pending_bmc_password",
            "node " + std::to_string(node_id) + " has no BMC password rotation in flight");
      });
}

common::Result<void> setBmcTlsFingerprint(Database& db, Id node_id, const std::string& sha256) {
  return detail::withTransaction(
      db, "set_bmc_tls_fingerprint", [&](Tx& tx) -> common::Result<void> {
        if (tx.exec(detail::kSetBmcTlsFingerprint, node_id, sha256).empty()) {
          return noCredentials(node_id);
        }
        return common::success();
      });
}

}  // namespace inventory

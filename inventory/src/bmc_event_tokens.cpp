// The hash of the secret a node's Redfish event subscription carries in its Context: the event
// receiver's only way to tell a BMC's event from a forged one.
#include "catalog_values.hpp"
#include "db.hpp"
#include "inventory/bmc_credentials.hpp"
#include "queries_discovery.hpp"

namespace inventory {

using detail::Tx;

common::Result<void> setBmcEventTokenHash(Database& db, Id node_id, const std::string& sha256) {
  if (!detail::isSha256Hex(sha256)) {
    return common::invalidArgument("invalid_token_hash",
                                   "the event token hash must be 64 lower-case hex digits",
                                   "event_token_hash");
  }
  return detail::withTransaction(db, "set_bmc_event_token", [&](Tx& tx) -> common::Result<void> {
    if (tx.exec(detail::kSetBmcEventTokenHash, node_id, sha256).empty()) {
      return common::notFound("bmc_credentials_not_found",
                              "node " + std::to_string(node_id) + " has no BMC credentials");
    }
    return common::success();
  });
}

common::Result<std::optional<Id>> nodeForBmcEventToken(Database& db, Id node_id,
                                                       const std::string& sha256) {
  if (!detail::isSha256Hex(sha256)) return std::optional<Id>();
  return detail::withRead(db, "check_bmc_event_token",
                          [&](Tx& tx) -> common::Result<std::optional<Id>> {
                            auto rows = tx.exec(detail::kNodeForBmcEventToken, node_id, sha256);
                            if (rows.empty()) return std::optional<Id>();
                            return std::optional<Id>(detail::id(rows[0][0]));
                          });
}

}  // namespace inventory

// A node's claimed BMC credentials (migration 0004): the per-node secret that replaced the
// factory one, sealed with the service's SecretBox. The claim writes its intent (the pending
// secret) before it tells the BMC, so a claim resumed after a crash knows what it may have set.
#pragma once

#include <optional>
#include <string>

#include "common/result.hpp"
#include "common/secret_box.hpp"
#include "inventory/database.hpp"
#include "inventory/types.hpp"

namespace inventory {

struct BmcCredentials {
  Id node_id = 0;
  std::string username;
  std::string password;                // opened (never log it)
  std::optional<std::string> pending;  // a rotation in flight, opened
  std::string tls_fingerprint;
  std::optional<Timestamp> rotated_at;
};

// Nothing recorded yet: an empty optional.
common::Result<std::optional<BmcCredentials>> bmcCredentials(Database& db,
                                                             const common::SecretBox& box,
                                                             Id node_id);
// Intent: records `pending` (creating the row with `current` as the working password when the
// node has none yet, e.g. the factory one).
common::Result<void> recordPendingBmcPassword(Database& db, const common::SecretBox& box,
                                              Id node_id, const std::string& username,
                                              const std::string& current,
                                              const std::string& pending);
// The BMC accepted the pending password: it becomes the password, rotated_at := now().
common::Result<void> commitPendingBmcPassword(Database& db, Id node_id);
common::Result<void> setBmcTlsFingerprint(Database& db, Id node_id, const std::string& sha256);
// The hash of the secret in this node's Redfish event subscription Context.
common::Result<void> setBmcEventTokenHash(Database& db, Id node_id, const std::string& sha256);
// The node whose subscription carries this token hash, if any (the event receiver's check).
common::Result<std::optional<Id>> nodeForBmcEventToken(Database& db, Id node_id,
                                                       const std::string& sha256);

}  // namespace inventory

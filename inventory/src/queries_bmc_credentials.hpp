// SQL of claimed BMC credentials (node_bmc_credentials, migration 0004).
#pragma once

#include "db.hpp"

namespace inventory::detail {

constexpr Query kSelectBmcCredentials{"select_bmc_credentials", R"(
  SELECT username, password_sealed, pending_password_sealed, tls_fingerprint,
         iso8601(rotated_at)
    FROM node_bmc_credentials WHERE node_id = $1)"};
// The working password is only set when the row is new: an existing row keeps the one that
// works, and a second intent replaces the pending one.
constexpr Query kRecordPendingBmcPassword{"record_pending_bmc_password", R"(
  INSERT INTO node_bmc_credentials (node_id, username, password_sealed, pending_password_sealed)
  VALUES ($1, $2, $3, $4)
  ON CONFLICT (node_id) DO UPDATE
     SET username = EXCLUDED.username,
         pending_password_sealed = EXCLUDED.pending_password_sealed, updated_at = now())"};
constexpr Query kCommitPendingBmcPassword{"commit_pending_bmc_password", R"(
  UPDATE node_bmc_credentials
     SET password_sealed = pending_password_sealed, pending_password_sealed = NULL,
         rotated_at = now(), updated_at = now()
   WHERE node_id = $1 AND pending_password_sealed IS NOT NULL
  RETURNING node_id)"};
constexpr Query kSelectBmcCredentialsRow{
    "select_bmc_credentials_row",
    "SELECT pending_password_sealed IS NOT NULL FROM node_bmc_credentials WHERE node_id = $1"};
constexpr Query kSetBmcTlsFingerprint{"set_bmc_tls_fingerprint", R"(
  UPDATE node_bmc_credentials SET tls_fingerprint = $2, updated_at = now()
   WHERE node_id = $1 RETURNING node_id)"};

}  // namespace inventory::detail

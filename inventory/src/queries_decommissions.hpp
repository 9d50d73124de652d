// SQL of decommissions, their devices, evidence and certificates, and the retirement of a node's
// secrets (migration 0007). Times the workflow writes are parameters in microseconds since the
// epoch (the engine's clock).
#pragma once

#include "db.hpp"

#define INVENTORY_DECOM_TS(n) "(timestamptz 'epoch' + $" #n "::bigint * interval '1 microsecond')"

// Columns read by decommissionFromRow(), from decommissions d joined to nodes n.
#define INVENTORY_DECOM_COLUMNS                                                                \
  "d.id, d.node_id, n.chassis_serial, d.reason, d.state, d.requested_by, d.note, d.wipe_seed," \
  " d.failure_reason, d.failure_detail::text, iso8601(d.created_at), iso8601(d.finished_at),"  \
  " (SELECT c.id FROM sanitization_certificates c WHERE c.decommission_id = d.id)"

#define INVENTORY_DEVICE_COLUMNS                                                             \
  "serial, media_type, manufacturer, model, sanitization, technique, tool, tool_version,"    \
  " verification_method, verification_coverage, verified_by, result, failure, detail::text," \
  " iso8601(started_at), iso8601(finished_at)"

#define INVENTORY_CERT_COLUMNS                                                    \
  "c.id, c.decommission_id, c.node_id, c.key_id, c.document, c.document_sha256, " \
  "encode(c.signature, 'hex'),"                                                   \
  " iso8601(c.issued_at)"

namespace inventory::detail {

constexpr Query kLockNodeForDecommission{"lock_node_for_decommission",
                                         "SELECT state FROM nodes WHERE id = $1 FOR UPDATE"};
constexpr Query kSelectOpenDecommission{
    "select_open_decommission",
    "SELECT id FROM decommissions WHERE node_id = $1 AND state = 'running'"};
constexpr Query kInsertDecommission{"insert_decommission", R"(
INSERT INTO decommissions (node_id, reason, requested_by, note, wipe_seed, created_at)
VALUES ($1, $2, $3, $4, $5, )" INVENTORY_DECOM_TS(6) R"() RETURNING id)"};
constexpr Query kSelectDecommission{"select_decommission",
                                    "SELECT " INVENTORY_DECOM_COLUMNS
                                    " FROM decommissions d JOIN nodes n ON n.id = d.node_id"
                                    " WHERE d.id = $1"};
constexpr Query kLockDecommission{"lock_decommission",
                                  "SELECT node_id, state FROM decommissions WHERE id = $1"
                                  " FOR UPDATE"};
constexpr Query kListDecommissions{"list_decommissions",
                                   "SELECT " INVENTORY_DECOM_COLUMNS
                                   " FROM decommissions d JOIN nodes n ON n.id = d.node_id"
                                   " WHERE ($1 = 0 OR d.node_id = $1) ORDER BY d.id DESC LIMIT $2"};
constexpr Query kFinishDecommission{"finish_decommission", R"(
UPDATE decommissions SET state = $2, failure_reason = $3, failure_detail = $4::jsonb,
  finished_at = )" INVENTORY_DECOM_TS(5) R"( WHERE id = $1)"};

constexpr Query kUpsertDevice{"upsert_decommission_device", R"(
INSERT INTO decommission_devices (decommission_id, serial, media_type, manufacturer, model,
  sanitization, technique, tool, tool_version, verification_method, verification_coverage,
  verified_by, result, failure, detail, started_at, finished_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15::jsonb,
  $16::timestamptz, $17::timestamptz)
ON CONFLICT (decommission_id, serial) DO UPDATE SET media_type = EXCLUDED.media_type,
  manufacturer = EXCLUDED.manufacturer, model = EXCLUDED.model,
  sanitization = EXCLUDED.sanitization, technique = EXCLUDED.technique, tool = EXCLUDED.tool,
  tool_version = EXCLUDED.tool_version, verification_method = EXCLUDED.verification_method,
  verification_coverage = EXCLUDED.verification_coverage, verified_by = EXCLUDED.verified_by,
  result = EXCLUDED.result, failure = EXCLUDED.failure, detail = EXCLUDED.detail,
  started_at = EXCLUDED.started_at, finished_at = EXCLUDED.finished_at)"};
constexpr Query kSelectDevices{"select_decommission_devices",
                               "SELECT " INVENTORY_DEVICE_COLUMNS
                               " FROM decommission_devices WHERE decommission_id = $1"
                               " ORDER BY media_type, serial"};

constexpr Query kInsertEvidence{"insert_decommission_evidence", R"(
INSERT INTO decommission_evidence (decommission_id, name, sha256, body, recorded_at)
VALUES ($1, $2, $3, $4, )" INVENTORY_DECOM_TS(5) R"() ON CONFLICT DO NOTHING)"};
constexpr Query kSelectEvidence{"select_decommission_evidence",
                                "SELECT name, sha256, body, iso8601(recorded_at)"
                                " FROM decommission_evidence WHERE decommission_id = $1"
                                " ORDER BY name"};
constexpr Query kSelectEvidenceByName{"select_decommission_evidence_by_name",
                                      "SELECT name, sha256, body, iso8601(recorded_at)"
                                      " FROM decommission_evidence"
                                      " WHERE decommission_id = $1 AND name = $2"};

constexpr Query kInsertCertificate{"insert_sanitization_certificate", R"(
INSERT INTO sanitization_certificates (decommission_id, node_id, key_id, document,
  document_sha256, signature, issued_at)
VALUES ($1, $2, $3, $4, $5, decode($6, 'hex'), )" INVENTORY_DECOM_TS(7) R"() RETURNING id)"};
constexpr Query kSelectCertificate{"select_sanitization_certificate",
                                   "SELECT " INVENTORY_CERT_COLUMNS
                                   " FROM sanitization_certificates c WHERE c.id = $1"};
constexpr Query kListCertificatesOfNode{"list_certificates_of_node",
                                        "SELECT " INVENTORY_CERT_COLUMNS
                                        " FROM sanitization_certificates c WHERE c.node_id = $1"
                                        " ORDER BY c.id DESC"};
constexpr Query kListCertificatesOfSerial{"list_certificates_of_serial",
                                          "SELECT " INVENTORY_CERT_COLUMNS
                                          " FROM sanitization_certificates c"
                                          " JOIN nodes n ON n.id = c.node_id"
                                          " WHERE n.chassis_serial = $1 OR EXISTS (SELECT 1"
                                          " FROM decommission_devices x WHERE x.decommission_id"
                                          " = c.decommission_id AND x.serial = $1)"
                                          " ORDER BY c.id DESC"};

constexpr Query kUpdateNodeStateForDecommission{
    "update_node_state_for_decommission",
    "UPDATE nodes SET state = $2, state_reason = $3, state_detail = $4::jsonb, updated_at = now()"
    " WHERE id = $1"};

constexpr Query kDeleteBmcCredentials{"retire_bmc_credentials",
                                      "DELETE FROM node_bmc_credentials WHERE node_id = $1"};
constexpr Query kDeleteBootMacs{"retire_boot_macs", "DELETE FROM boot_macs WHERE node_id = $1"};
constexpr Query kRevokeNodeAgentTokens{"retire_agent_tokens",
                                       "UPDATE agent_tokens SET revoked_at = now()"
                                       " WHERE node_id = $1 AND revoked_at IS NULL"};

}  // namespace inventory::detail

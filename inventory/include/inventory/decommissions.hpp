// Decommissions in the inventory (migration 0007): the request, what was sanitized on every device
// and how it was verified, the raw evidence by digest, the signed certificate, and the node's
// secrets retired. Times are parameters (the workflow engine's clock), never now().
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"
#include "inventory/database.hpp"
#include "inventory/types.hpp"

namespace inventory {

using DecommissionTime = std::chrono::system_clock::time_point;

inline constexpr std::string_view kDecommissionReasons[] = {"rma", "refresh", "redeploy",
                                                            "tenant_change", "disposal"};
bool isDecommissionReason(std::string_view reason);

struct Decommission {
  Id id = 0;
  Id node_id = 0;
  std::string chassis_serial;
  std::string reason;
  std::string state;  // running | succeeded | failed
  std::string requested_by;
  std::string note;
  std::int64_t wipe_seed = 0;
  std::string failure_reason;
  std::string failure_detail_json = "{}";
  Timestamp created_at;
  std::optional<Timestamp> finished_at;
  std::optional<Id> certificate_id;
};

struct DecommissionRequest {
  Id node_id = 0;
  std::string reason;
  std::string requested_by;
  std::string note;
  std::int64_t wipe_seed = 0;
  DecommissionTime at;
};

// Opens a decommission and moves the node to "decommissioning" (with a timeline event), in one
// transaction. Errors: NotFound "node_not_found"; InvalidArgument "invalid_reason"; Conflict
// "node_retired" (already retired), "node_being_provisioned" (a bring-up or firmware update is
// in flight: states discovered..burn_in and firmware), "decommission_open" (one is running).
common::Result<Decommission> createDecommission(Database& db, const DecommissionRequest& request);
// NotFound "decommission_not_found".
common::Result<Decommission> getDecommission(Database& db, Id decommission_id);
// Newest first; every node when node_id is 0.
common::Result<std::vector<Decommission>> listDecommissions(Database& db, Id node_id,
                                                            int limit = 100);

// One device's sanitization, in the words of NIST SP 800-88 Rev. 2.
struct DeviceSanitization {
  std::string serial;
  std::string media_type;  // gpu_hbm | ssd | hdd
  std::string manufacturer;
  std::string model;
  std::string sanitization;  // clear | purge | none
  std::string technique;
  std::string tool;
  std::string tool_version;
  std::string verification_method;
  double verification_coverage = 0;  // 0..1
  std::string verified_by;
  std::string result;  // passed | failed
  std::string failure;
  std::string detail_json = "{}";
  std::optional<Timestamp> started_at;  // ISO 8601 as reported
  std::optional<Timestamp> finished_at;
};

// Upserts by (decommission, serial): a resumed step that records the same device again leaves
// one row. Conflict "decommission_not_running" once the decommission finished.
common::Result<void> recordDeviceSanitizations(Database& db, Id decommission_id,
                                               const std::vector<DeviceSanitization>& devices);
common::Result<std::vector<DeviceSanitization>> listDeviceSanitizations(Database& db,
                                                                        Id decommission_id);

struct Evidence {
  std::string name;  // "agent_wipe_report_task_12", "bmc_task_Drive.1"
  std::string sha256;
  std::string body;
  Timestamp recorded_at;
};
// Keeps `body` verbatim under `name` (the first one stays: evidence is never rewritten).
common::Result<Evidence> recordEvidence(Database& db, Id decommission_id, const std::string& name,
                                        const std::string& body, DecommissionTime at);
common::Result<std::vector<Evidence>> listEvidence(Database& db, Id decommission_id);

struct Certificate {
  Id id = 0;
  Id decommission_id = 0;
  Id node_id = 0;
  std::string key_id;
  std::string document;  // exactly the signed bytes
  std::string document_sha256;
  std::string signature;  // the 64 raw bytes
  Timestamp issued_at;
};

// The decommission's end, each in one transaction with the node's state and a timeline event:
// succeeded with its certificate (node -> `node_state`, "retired" or "discovered" for a
// redeploy); failed with the reason (node -> "decommission_failed", nothing signed).
// Conflict "decommission_not_running" when it already ended.
common::Result<Certificate> finishWithCertificate(Database& db, Id decommission_id,
                                                  const Certificate& certificate,
                                                  const std::string& node_state,
                                                  DecommissionTime at);
common::Result<Decommission> failDecommission(Database& db, Id decommission_id,
                                              const std::string& reason,
                                              const std::string& detail_json, DecommissionTime at);

// NotFound "certificate_not_found".
common::Result<Certificate> getCertificate(Database& db, Id certificate_id);
// Newest first: a node's certificates, or those naming a device serial (the chassis serial or a
// sanitized device's).
common::Result<std::vector<Certificate>> listCertificatesForNode(Database& db, Id node_id);
common::Result<std::vector<Certificate>> listCertificatesForSerial(Database& db,
                                                                   const std::string& serial);

// What retiring a node's identity removed (for the timeline and the certificate's evidence).
struct RetiredSecrets {
  int bmc_credentials = 0;  // managed BMC secrets destroyed
  int boot_macs = 0;
  int agent_tokens = 0;  // revoked
};
// Destroys the managed BMC secret and its certificate pin, forgets the boot MACs and revokes
// every agent token of the node. Idempotent.
common::Result<RetiredSecrets> retireNodeSecrets(Database& db, Id node_id);

}  // namespace inventory

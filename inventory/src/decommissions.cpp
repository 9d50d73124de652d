#include "inventory/decommissions.hpp"
#include "common/hex.hpp"

#include <algorithm>
#include <array>

#include "common/secret_box.hpp"
#include "db.hpp"
#include "inventory/node_credentials.hpp"
#include "node_rows.hpp"
#include "queries_decommissions.hpp"
#include "queries_node_credentials.hpp"

namespace inventory {
namespace {

using detail::Tx;

// States in which a bring-up or a firmware update owns the node: decommissioning then would race
// it.
constexpr std::array<std::string_view, 8> kBusyStates = {"discovered", "matched",    "claimed",
                                                         "inspected",  "configured", "firmware",
                                                         "imaging",    "burn_in"};

std::int64_t micros(DecommissionTime t) {
  return std::chrono::duration_cast<std::chrono::microseconds>(t.time_since_epoch()).count();
}

std::optional<Timestamp> optText(const pqxx::field& f) {
  return f.is_null() ? std::nullopt : std::optional<Timestamp>(f.c_str());
}

Decommission decommissionFromRow(const pqxx::row& row) {
  Decommission d;
  d.id = detail::id(row[0]);
  d.node_id = detail::id(row[1]);
  d.chassis_serial = detail::text(row[2]);
  d.reason = detail::text(row[3]);
  d.state = detail::text(row[4]);
  d.requested_by = detail::text(row[5]);
  d.note = detail::text(row[6]);
  d.wipe_seed = row[7].as<std::int64_t>();
  d.failure_reason = detail::text(row[8]);
  d.failure_detail_json = detail::text(row[9]);
  d.created_at = detail::text(row[10]);
  d.finished_at = optText(row[11]);
  d.certificate_id = detail::optId(row[12]);
  return d;
}

DeviceSanitization deviceFromRow(const pqxx::row& row) {
  DeviceSanitization d;
  d.serial = detail::text(row[0]);
  d.media_type = detail::text(row[1]);
  d.manufacturer = detail::text(row[2]);
  d.model = detail::text(row[3]);
  d.sanitization = detail::text(row[4]);
  d.technique = detail::text(row[5]);
  d.tool = detail::text(row[6]);
  d.tool_version = detail::text(row[7]);
  d.verification_method = detail::text(row[8]);
  d.verification_coverage = row[9].as<double>();
  d.verified_by = detail::text(row[10]);
  d.result = detail::text(row[11]);
  d.failure = detail::text(row[12]);
  d.detail_json = detail::text(row[13]);
  d.started_at = optText(row[14]);
  d.finished_at = optText(row[15]);
  return d;
}

Certificate certificateFromRow(const pqxx::row& row) {
  Certificate c;
  c.id = detail::id(row[0]);
  c.decommission_id = detail::id(row[1]);
  c.node_id = detail::id(row[2]);
  c.key_id = detail::text(row[3]);
  c.document = detail::text(row[4]);
  c.document_sha256 = detail::text(row[5]);
  c.signature = common::bytesFromHex(detail::text(row[6])).value_or(std::string{});
  c.issued_at = detail::text(row[7]);
  return c;
}

Evidence evidenceFromRow(const pqxx::row& row) {
  return Evidence{detail::text(row[0]), detail::text(row[1]), detail::text(row[2]),
                  detail::text(row[3])};
}

common::Error decommissionNotFound(Id id) {
  return common::notFound("decommission_not_found",
                          "decommission " + std::to_string(id) + " does not exist");
}

common::Result<void> refuseNodeState(const std::string& state, Id node_id) {
  const std::string node = "node " + std::to_string(node_id);
  if (state == "retired") {
    return common::conflict("node_retired", node + " is already retired");
  }
  if (std::find(kBusyStates.begin(), kBusyStates.end(), state) != kBusyStates.end()) {
    return common::conflict("node_being_provisioned",
                            node + " is being provisioned (state " + state +
                                "): cancel its bring-up or let it finish first");
  }
  return common::success();
}

// Locks the decommission; Conflict when it is no longer running. Returns its node.
common::Result<Id> lockRunning(Tx& tx, Id decommission_id) {
  auto rows = tx.exec(detail::kLockDecommission, decommission_id);
  if (rows.empty()) return common::fail(decommissionNotFound(decommission_id));
  if (detail::text(rows[0][1]) != "running") {
    return common::fail(common::conflict("decommission_not_running",
                                         "decommission " + std::to_string(decommission_id) +
                                             " already " + detail::text(rows[0][1])));
  }
  return detail::id(rows[0][0]);
}

void setNodeState(Tx& tx, Id node_id, const std::string& state, const std::string& reason,
                  const std::string& detail_json, const std::string& event_kind) {
  tx.exec(detail::kUpdateNodeStateForDecommission, node_id, state, reason, detail_json);
  detail::insertEvent(tx, node_id, "decommission", event_kind, reason, detail_json);
}

}  // namespace

bool isDecommissionReason(std::string_view reason) {
  return std::find(std::begin(kDecommissionReasons), std::end(kDecommissionReasons), reason) !=
         std::end(kDecommissionReasons);
}

common::Result<Decommission> createDecommission(Database& db, const DecommissionRequest& r) {
  if (!isDecommissionReason(r.reason)) {
    return common::fail(common::invalidArgument(
        "invalid_reason",
        "reason '" + r.reason.substr(0, 40) +
            "' is not one of rma, refresh, redeploy, tenant_change, disposal",
        "reason"));
  }
  return detail::withTransaction(
      db, "create decommission", [&](Tx& tx) -> common::Result<Decommission> {
        auto node = tx.exec(detail::kLockNodeForDecommission, r.node_id);
        if (node.empty()) return common::fail(detail::nodeNotFound(r.node_id));
        PROV_TRY(refuseNodeState(detail::text(node[0][0]), r.node_id));
        auto open = tx.exec(detail::kSelectOpenDecommission, r.node_id);
        if (!open.empty()) {
          return common::fail(common::conflict(
              "decommission_open", "node " + std::to_string(r.node_id) +
                                       " is already being decommissioned (decommission " +
                                       detail::text(open[0][0]) + ")"));
        }
        auto id = tx.exec(detail::kInsertDecommission, r.node_id, r.reason, r.requested_by, r.note,
                          r.wipe_seed, micros(r.at));
        const Id decommission_id = detail::id(id[0][0]);
        const std::string detail_json = "{\"decommission_id\": " + std::to_string(decommission_id) +
                                        ", \"reason\": \"" + r.reason + "\"}";
        // The resident agent's credential goes with the decision, not at the certificate: a
        // node being wiped reports nothing more.
        tx.exec(detail::kRevokeLiveNodeCredentials, r.node_id,
                std::string(kCredentialDecommissioned));
        setNodeState(tx, r.node_id, "decommissioning",
                     "decommission " + std::to_string(decommission_id) + " (" + r.reason + ")",
                     detail_json, "decommission_requested");
        auto rows = tx.exec(detail::kSelectDecommission, decommission_id);
        return decommissionFromRow(rows[0]);
      });
}

common::Result<Decommission> getDecommission(Database& db, Id decommission_id) {
  return detail::withRead(db, "get decommission", [&](Tx& tx) -> common::Result<Decommission> {
    auto rows = tx.exec(detail::kSelectDecommission, decommission_id);
    if (rows.empty()) return common::fail(decommissionNotFound(decommission_id));
    return decommissionFromRow(rows[0]);
  });
}

common::Result<std::vector<Decommission>> listDecommissions(Database& db, Id node_id, int limit) {
  return detail::withRead(
      db, "list decommissions", [&](Tx& tx) -> common::Result<std::vector<Decommission>> {
        std::vector<Decommission> out;
        for (const auto& row : tx.exec(detail::kListDecommissions, node_id, limit)) {
          out.push_back(decommissionFromRow(row));
        }
        return out;
      });
}

common::Result<void> recordDeviceSanitizations(Database& db, Id decommission_id,
                                               const std::vector<DeviceSanitization>& devices) {
  return detail::withTransaction(
      db, "record device sanitizations", [&](Tx& tx) -> common::Result<void> {
        PROV_TRY(lockRunning(tx, decommission_id));
        for (const auto& d : devices) {
          tx.exec(detail::kUpsertDevice, decommission_id, d.serial, d.media_type, d.manufacturer,
                  d.model, d.sanitization, d.technique, d.tool, d.tool_version,
                  d.verification_method, d.verification_coverage, d.verified_by, d.result,
                  d.failure, d.detail_json, d.started_at, d.finished_at);
        }
        return common::success();
      });
}

common::Result<std::vector<DeviceSanitization>> listDeviceSanitizations(Database& db,
                                                                        Id decommission_id) {
  return detail::withRead(
      db, "list device sanitizations",
      [&](Tx& tx) -> common::Result<std::vector<DeviceSanitization>> {
        std::vector<DeviceSanitization> out;
        for (const auto& row : tx.exec(detail::kSelectDevices, decommission_id)) {
          out.push_back(deviceFromRow(row));
        }
        return out;
      });
}

common::Result<Evidence> recordEvidence(Database& db, Id decommission_id, const std::string& name,
                                        const std::string& body, DecommissionTime at) {
  const std::string digest = common::sha256Hex(body);
  return detail::withTransaction(db, "record evidence", [&](Tx& tx) -> common::Result<Evidence> {
    PROV_TRY(lockRunning(tx, decommission_id));
    tx.exec(detail::kInsertEvidence, decommission_id, name, digest, body, micros(at));
    auto rows = tx.exec(detail::kSelectEvidenceByName, decommission_id, name);
    return evidenceFromRow(rows[0]);
  });
}

common::Result<std::vector<Evidence>> listEvidence(Database& db, Id decommission_id) {
  return detail::withRead(
      db, "list evidence", [&](Tx& tx) -> common::Result<std::vector<Evidence>> {
        std::vector<Evidence> out;
        for (const auto& row : tx.exec(detail::kSelectEvidence, decommission_id)) {
          out.push_back(evidenceFromRow(row));
        }
        return out;
      });
}

common::Result<Certificate> finishWithCertificate(Database& db, Id decommission_id,
                                                  const Certificate& c,
                                                  const std::string& node_state,
                                                  DecommissionTime at) {
  return detail::withTransaction(
      db, "finish decommission", [&](Tx& tx) -> common::Result<Certificate> {
        PROV_ASSIGN(Id node_id, lockRunning(tx, decommission_id));
        auto id =
            tx.exec(detail::kInsertCertificate, decommission_id, node_id, c.key_id, c.document,
                    common::sha256Hex(c.document), common::hexOf(c.signature), micros(at));
        const Id certificate_id = detail::id(id[0][0]);
        tx.exec(detail::kFinishDecommission, decommission_id, "succeeded", "", "{}", micros(at));
        const std::string detail_json = "{\"decommission_id\": " + std::to_string(decommission_id) +
                                        ", \"certificate_id\": " + std::to_string(certificate_id) +
                                        "}";
        setNodeState(tx, node_id, node_state,
                     "decommission " + std::to_string(decommission_id) + ": certificate " +
                         std::to_string(certificate_id) + " issued",
                     detail_json, "decommission_certified");
        auto rows = tx.exec(detail::kSelectCertificate, certificate_id);
        return certificateFromRow(rows[0]);
      });
}

common::Result<Decommission> failDecommission(Database& db, Id decommission_id,
                                              const std::string& reason,
                                              const std::string& detail_json, DecommissionTime at) {
  return detail::withTransaction(
      db, "fail decommission", [&](Tx& tx) -> common::Result<Decommission> {
        PROV_ASSIGN(Id node_id, lockRunning(tx, decommission_id));
        tx.exec(detail::kFinishDecommission, decommission_id, "failed", reason, detail_json,
                micros(at));
        setNodeState(tx, node_id, "decommission_failed", reason, detail_json,
                     "decommission_failed");
        auto rows = tx.exec(detail::kSelectDecommission, decommission_id);
        return decommissionFromRow(rows[0]);
      });
}

common::Result<Certificate> getCertificate(Database& db, Id certificate_id) {
  return detail::withRead(db, "get certificate", [&](Tx& tx) -> common::Result<Certificate> {
    auto rows = tx.exec(detail::kSelectCertificate, certificate_id);
    if (rows.empty()) {
      return common::fail(
          common::notFound("certificate_not_found",
                           "certificate " + std::to_string(certificate_id) + " does not exist"));
    }
    return certificateFromRow(rows[0]);
  });
}

namespace {
template <class Arg>
common::Result<std::vector<Certificate>> listCertificates(Database& db, const detail::Query& q,
                                                          const Arg& arg) {
  return detail::withRead(db, "list certificates",
                          [&](Tx& tx) -> common::Result<std::vector<Certificate>> {
                            std::vector<Certificate> out;
                            for (const auto& row : tx.exec(q, arg)) {
                              out.push_back(certificateFromRow(row));
                            }
                            return out;
                          });
}
}  // namespace

common::Result<std::vector<Certificate>> listCertificatesForNode(Database& db, Id node_id) {
  return listCertificates(db, detail::kListCertificatesOfNode, node_id);
}

common::Result<std::vector<Certificate>> listCertificatesForSerial(Database& db,
                                                                   const std::string& serial) {
  return listCertificates(db, detail::kListCertificatesOfSerial, serial);
}

common::Result<RetiredSecrets> retireNodeSecrets(Database& db, Id node_id) {
  return detail::withTransaction(
      db, "retire node secrets", [&](Tx& tx) -> common::Result<RetiredSecrets> {
        RetiredSecrets r;
        r.bmc_credentials =
            static_cast<int>(tx.exec(detail::kDeleteBmcCredentials, node_id).affected_rows());
        r.boot_macs = static_cast<int>(tx.exec(detail::kDeleteBootMacs, node_id).affected_rows());
        r.agent_tokens =
            static_cast<int>(tx.exec(detail::kRevokeNodeAgentTokens, node_id).affected_rows());
        return r;
      });
}

}  // namespace inventory

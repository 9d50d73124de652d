// Certificate document, fail-closed building, signing and offline verification.
#include "workflows/decommission/certificate.hpp"

#include <nlohmann/json.hpp>

#include "common/secret_box.hpp"
#include "images/signing.hpp"

namespace workflows::decommission {
namespace {

using nlohmann::json;

constexpr int kIndent = 2;
constexpr std::size_t kMaxCertificate = std::size_t{4} * 1024 * 1024;

json deviceJson(const SanitizedDevice& d) {
  return {{"manufacturer", d.manufacturer},
          {"model", d.model},
          {"serial", d.serial},
          {"media_type", d.media_type},
          {"method", d.method},
          {"technique", d.technique},
          {"tool", {{"name", d.tool}, {"version", d.tool_version}}},
          {"verification",
           {{"method", d.verification_method},
            {"coverage", d.verification_coverage},
            {"verified_by", d.verified_by}}},
          {"result", d.result},
          {"started_at", d.started_at},
          {"finished_at", d.finished_at}};
}

json evidenceJson(const std::vector<EvidenceDigest>& evidence) {
  json list = json::array();
  for (const auto& e : evidence) list.push_back({{"name", e.name}, {"sha256", e.sha256}});
  return list;
}

common::Error malformed(const std::string& why) {
  return common::invalidArgument("malformed_certificate", "the certificate " + why);
}

const std::string* textAt(const json& object, const char* key) {
  auto it = object.find(key);
  return it == object.end() ? nullptr : it->get_ptr<const std::string*>();
}

}  // namespace

std::string certificateJson(const CertificateInput& in) {
  json devices = json::array();
  for (const auto& d : in.devices) devices.push_back(deviceJson(d));
  const json document = {{"schema", kCertificateSchema},
                         {"key_id", in.key_id},
                         {"issued_at", in.issued_at},
                         {"decommission",
                          {{"id", in.decommission_id},
                           {"reason", in.reason},
                           {"requested_by", in.requested_by},
                           {"started_at", in.started_at},
                           {"finished_at", in.finished_at},
                           {"disposition", in.disposition}}},
                         {"node",
                          {{"id", in.node.node_id},
                           {"chassis_serial", in.node.chassis_serial},
                           {"bmc_mac", in.node.bmc_mac},
                           {"model", in.node.model},
                           {"purchase_order", in.node.purchase_order}}},
                         {"devices", std::move(devices)},
                         {"evidence", evidenceJson(in.evidence)}};
  // nlohmann's object is a std::map: keys come out sorted, so the bytes are deterministic.
  return document.dump(kIndent) + "\n";
}

common::Result<std::string> buildCertificate(const CertificateInput& input) {
  if (input.devices.empty()) {
    return common::invalidArgument("no_devices", "no sanitized device: nothing to certify",
                                   "devices");
  }
  for (const auto& d : input.devices) {
    if (d.result != "passed") {
      const std::string why = d.failure.empty() ? "result " + d.result : d.failure;
      return common::invalidArgument("device_not_sanitized",
                                     d.media_type + " " + d.serial + " was not sanitized: " + why,
                                     d.serial);
    }
  }
  if (input.key_id.empty()) {
    return common::invalidArgument("invalid_certificate", "the signing key id is missing",
                                   "key_id");
  }
  return certificateJson(input);
}

common::Result<std::string> signCertificate(std::string_view json_bytes,
                                            std::string_view private_pem) {
  PROV_ASSIGN(auto signed_bytes, images::signBytes(json_bytes, private_pem));
  auto document = json::parse(json_bytes, nullptr, false);
  const std::string* key_id = document.is_object() ? textAt(document, "key_id") : nullptr;
  if (key_id == nullptr || *key_id != signed_bytes.key_id) {
    return common::invalidArgument("key_id_mismatch",
                                   "the certificate names key " + (key_id ? *key_id : "(none)") +
                                       " but is being signed with " + signed_bytes.key_id,
                                   "key_id");
  }
  return std::move(signed_bytes.signature);
}

common::Result<VerifiedCertificate> verifyCertificate(std::string_view json_bytes,
                                                      std::string_view sig_bytes,
                                                      std::string_view public_pem) {
  PROV_ASSIGN(auto key, images::parsePublicKeyPem(public_pem));
  if (json_bytes.size() > kMaxCertificate || !images::verifyBytes(json_bytes, sig_bytes, key)) {
    return common::invalidArgument("signature_invalid",
                                   "the signature does not verify with key " + key.key_id +
                                       " (the certificate changed after signing, or another key)");
  }
  auto document = json::parse(json_bytes, nullptr, false);
  if (!document.is_object()) return malformed("is not a JSON object");
  const std::string* schema = textAt(document, "schema");
  if (schema == nullptr || *schema != kCertificateSchema) {
    return common::invalidArgument(
        "schema_mismatch",
        "schema " + (schema ? *schema : "(none)") + " is not " + std::string(kCertificateSchema),
        "schema");
  }
  const std::string* key_id = textAt(document, "key_id");
  if (key_id == nullptr || *key_id != key.key_id) {
    return common::invalidArgument("key_id_mismatch",
                                   "the certificate names key " + (key_id ? *key_id : "(none)") +
                                       " but verifies with " + key.key_id,
                                   "key_id");
  }
  auto node = document.find("node");
  auto decommission = document.find("decommission");
  auto devices = document.find("devices");
  if (node == document.end() || !node->is_object() || decommission == document.end() ||
      !decommission->is_object() || devices == document.end() || !devices->is_array()) {
    return malformed("lacks node, decommission or devices");
  }
  auto text = [](const json& object, const char* name) {
    const std::string* value = textAt(object, name);
    return value ? *value : std::string();
  };
  VerifiedCertificate verified;
  verified.key_id = key.key_id;
  verified.decommission_id = text(*decommission, "id");
  verified.node_id = text(*node, "id");
  verified.chassis_serial = text(*node, "chassis_serial");
  verified.issued_at = text(document, "issued_at");
  verified.devices = devices->size();
  verified.sha256 = common::sha256Hex(json_bytes);
  return verified;
}

}  // namespace workflows::decommission

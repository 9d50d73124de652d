// The signed sanitization certificate of one decommission (issue 12 section 5): the model, its
// canonical JSON bytes, the detached Ed25519 signature over exactly those bytes, offline
// verification and the auditors' HTML page. Pure: no I/O (the signing key's file lives in
// certificate_key.hpp).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"

namespace workflows::decommission {

inline constexpr std::string_view kCertificateSchema = "provisioner.sanitization-certificate/v1";

struct CertificateNode {
  std::string node_id;
  std::string chassis_serial;
  std::string bmc_mac;
  std::string model;
  std::string purchase_order;
};

// SHA-256 of one raw evidence document (an agent report, a BMC task result) as stored.
struct EvidenceDigest {
  std::string name;    // e.g. "agent-wipe-report-task-17.json"
  std::string sha256;  // 64 lower-case hex digits
};

// One sanitized device, with the NIST SP 800-88 Rev. 2 fields.
struct SanitizedDevice {
  std::string manufacturer;
  std::string model;
  std::string serial;
  std::string media_type;  // "gpu_hbm", "ssd", "hdd"
  std::string method;      // "clear" or "purge" (NIST level reached)
  std::string technique;   // "cryptographic erase", "pattern+random+zero overwrite", ...
  std::string tool;
  std::string tool_version;
  std::string verification_method;   // "canary+sample", "full read-back on device", ...
  double verification_coverage = 0;  // fraction in [0, 1]
  std::string result;                // "passed" or "failed"
  std::string failure;               // why, when result is not "passed"
  std::string started_at;            // ISO 8601 UTC
  std::string finished_at;
  std::string verified_by;  // what verified it, e.g. "provisioner-agent 1.4.0 verify pass"
};

struct CertificateInput {
  CertificateNode node;
  std::string decommission_id;
  std::string reason;  // rma, refresh, redeploy, tenant_change, disposal
  std::string requested_by;
  std::string started_at;
  std::string finished_at;
  std::string disposition;
  std::vector<SanitizedDevice> devices;
  std::vector<EvidenceDigest> evidence;
  std::string key_id;     // the signing key's id (images::keyIdOf), written into the document
  std::string issued_at;  // ISO 8601 UTC
};

// The canonical bytes of the certificate file: sorted keys, two-space indent, trailing newline.
// Does not judge; buildCertificate() does.
std::string certificateJson(const CertificateInput& input);

// Fail closed: InvalidArgument "device_not_sanitized" (field = the device serial, the message
// names the serial and what failed) when any device's result is not "passed", and
// "no_devices" when the list is empty; InvalidArgument "invalid_certificate" when key_id is empty.
// Otherwise the canonical bytes.
common::Result<std::string> buildCertificate(const CertificateInput& input);

// The detached signature file content: the 64 raw Ed25519 signature bytes over exactly
// `json_bytes`, so `openssl pkeyutl -verify -rawin -sigfile` checks the files as written.
// InvalidArgument "invalid_private_key"; InvalidArgument "key_id_mismatch" when the document's
// key_id is not the id of this private key (the certificate would never verify).
common::Result<std::string> signCertificate(std::string_view json_bytes,
                                            std::string_view private_pem);

struct VerifiedCertificate {
  std::string key_id;
  std::string decommission_id;
  std::string node_id;
  std::string chassis_serial;
  std::string issued_at;
  std::size_t devices = 0;
  std::string sha256;  // of json_bytes
};

// Checks, each an InvalidArgument:
//   "invalid_public_key"       public_pem is not an Ed25519 public key
//   "signature_invalid"        the signature does not verify (changed bytes or another key)
//   "malformed_certificate"    not a JSON object, or without the fields below
//   "schema_mismatch"          schema is not kCertificateSchema
//   "key_id_mismatch"          the document's key_id is not the id of public_pem
common::Result<VerifiedCertificate> verifyCertificate(std::string_view json_bytes,
                                                      std::string_view sig_bytes,
                                                      std::string_view public_pem);

// A self-contained HTML page for auditors (one table per device) carrying the SHA-256 of
// json_bytes; every value HTML-escaped. InvalidArgument "malformed_certificate".
common::Result<std::string> certificateHtml(std::string_view json_bytes);

}  // namespace workflows::decommission

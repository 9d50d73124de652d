#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "common/secret_box.hpp"
#include "images/signing.hpp"
#include "workflows/decommission/certificate.hpp"

using Catch::Matchers::Contains;
using namespace workflows::decommission;

namespace {

SanitizedDevice passedGpu(std::string serial) {
  SanitizedDevice d;
  d.manufacturer = "NVIDIA";
  d.model = "H200";
  d.serial = std::move(serial);
  d.media_type = "gpu_hbm";
  d.method = "clear";
  d.technique = "pattern, seeded random and zero overwrite, verified on device";
  d.tool = "provisioner-agent";
  d.tool_version = "1.4.0";
  d.verification_method = "full read-back on device";
  d.verification_coverage = 0.98;
  d.result = "passed";
  d.started_at = "2026-12-03T23:10:00Z";
  d.finished_at = "2026-12-03T23:11:00Z";
  d.verified_by = "provisioner-agent verify kernel";
  return d;
}

CertificateInput input(const std::string& key_id) {
  CertificateInput in;
  in.node = {"42", "CH-0001", "aa:bb:cc:dd:ee:01", "HGX-H200", "PO-7"};
  in.decommission_id = "7";
  in.reason = "disposal";
  in.requested_by = "alice";
  in.started_at = "2026-12-03T23:00:00Z";
  in.finished_at = "2026-12-03T23:30:00Z";
  in.disposition = "recycled";
  in.devices = {passedGpu("GPU-1"), passedGpu("GPU-2")};
  in.evidence = {{"agent-wipe-report.json", common::sha256Hex("report")}};
  in.key_id = key_id;
  in.issued_at = "2026-12-03T23:31:00Z";
  return in;
}

struct Signed {
  images::KeyPair key;
  std::string json;
  std::string sig;
};

Signed signedCertificate() {
  Signed s;
  s.key = images::generateKeyPair().value();
  s.json = buildCertificate(input(s.key.key_id)).value();
  s.sig = signCertificate(s.json, s.key.private_pem).value();
  return s;
}

}  // namespace

TEST_CASE("certificate JSON is canonical: sorted keys, indent, trailing newline, schema") {
  const std::string bytes = certificateJson(input("ed25519:0011223344556677"));
  REQUIRE(bytes == certificateJson(input("ed25519:0011223344556677")));
  REQUIRE(bytes.back() == '\n');
  auto doc = nlohmann::json::parse(bytes);
  CHECK(doc["schema"] == "provisioner.sanitization-certificate/v1");
  CHECK(doc["key_id"] == "ed25519:0011223344556677");
  CHECK(doc["node"]["chassis_serial"] == "CH-0001");
  CHECK(doc["devices"][1]["serial"] == "GPU-2");
  CHECK(doc["devices"][0]["verification"]["coverage"] == 0.98);
  CHECK(doc["evidence"][0]["sha256"] == common::sha256Hex("report"));
  CHECK(doc.dump(2) + "\n" == bytes);  // re-dumping the parsed document gives the same bytes
  CHECK(bytes.find("\"decommission\"") < bytes.find("\"devices\""));  // keys sorted
}

TEST_CASE("a certificate is never built for a device that failed") {
  auto in = input("ed25519:0011223344556677");
  in.devices[1].result = "failed";
  in.devices[1].failure = "verify pass found 12 mismatches";
  auto built = buildCertificate(in);
  REQUIRE_FALSE(built);
  CHECK(built.error().code == "device_not_sanitized");
  CHECK(built.error().field == "GPU-2");
  CHECK_THAT(built.error().message, Contains("GPU-2") && Contains("12 mismatches"));

  in.devices[1].result = "";  // unknown is not passed either
  CHECK(buildCertificate(in).error().code == "device_not_sanitized");
}

TEST_CASE("a certificate without devices or key id is refused") {
  auto in = input("ed25519:0011223344556677");
  in.devices.clear();
  CHECK(buildCertificate(in).error().code == "no_devices");
  auto no_key = input("");
  CHECK(buildCertificate(no_key).error().code == "invalid_certificate");
}

TEST_CASE("a signed certificate verifies and summarises itself") {
  const auto s = signedCertificate();
  REQUIRE(s.sig.size() == 64);
  auto verified = verifyCertificate(s.json, s.sig, s.key.public_pem);
  REQUIRE(verified);
  CHECK(verified->key_id == s.key.key_id);
  CHECK(verified->decommission_id == "7");
  CHECK(verified->node_id == "42");
  CHECK(verified->chassis_serial == "CH-0001");
  CHECK(verified->devices == 2);
  CHECK(verified->sha256 == common::sha256Hex(s.json));
}

TEST_CASE("a certificate with one byte changed fails verification") {
  const auto s = signedCertificate();
  for (std::size_t at : {std::size_t{0}, s.json.size() / 2, s.json.size() - 1}) {
    std::string changed = s.json;
    changed[at] = static_cast<char>(changed[at] ^ 0x01);
    auto verified = verifyCertificate(changed, s.sig, s.key.public_pem);
    REQUIRE_FALSE(verified);
    CHECK(verified.error().code == "signature_invalid");
  }
  std::string sig = s.sig;
  sig[10] = static_cast<char>(sig[10] ^ 0x80);
  CHECK(verifyCertificate(s.json, sig, s.key.public_pem).error().code == "signature_invalid");
  CHECK(verifyCertificate(s.json, s.sig.substr(0, 63), s.key.public_pem).error().code ==
        "signature_invalid");
}

TEST_CASE("a certificate fails verification with another key") {
  const auto s = signedCertificate();
  const auto other = images::generateKeyPair().value();
  auto verified = verifyCertificate(s.json, s.sig, other.public_pem);
  REQUIRE_FALSE(verified);
  CHECK(verified.error().code == "signature_invalid");
  CHECK(verifyCertificate(s.json, s.sig, "not a key").error().code == "invalid_public_key");
}

TEST_CASE("signing refuses a document naming another key; verify checks key id and schema") {
  const auto key = images::generateKeyPair().value();
  const auto other = images::generateKeyPair().value();
  const std::string mislabelled = certificateJson(input(other.key_id));
  auto refused = signCertificate(mislabelled, key.private_pem);
  REQUIRE_FALSE(refused);
  CHECK(refused.error().code == "key_id_mismatch");

  // Signed bytes straight through images::signBytes, so only the key id check can catch it.
  auto raw = images::signBytes(mislabelled, key.private_pem).value();
  CHECK(verifyCertificate(mislabelled, raw.signature, key.public_pem).error().code ==
        "key_id_mismatch");

  auto doc = nlohmann::json::parse(certificateJson(input(key.key_id)));
  doc["schema"] = "provisioner.sanitization-certificate/v0";
  const std::string old_schema = doc.dump(2) + "\n";
  auto signed_old = images::signBytes(old_schema, key.private_pem).value();
  CHECK(verifyCertificate(old_schema, signed_old.signature, key.public_pem).error().code ==
        "schema_mismatch");

  CHECK(signCertificate("{}", "not a key").error().code == "invalid_private_key");
}

TEST_CASE("the HTML rendering escapes every value and carries the JSON digest") {
  const auto key = images::generateKeyPair().value();
  auto in = input(key.key_id);
  in.devices[0].serial = "<script>alert('x')</script>";
  in.node.purchase_order = "PO \"7\" & co";
  const std::string bytes = buildCertificate(in).value();
  auto html = certificateHtml(bytes);
  REQUIRE(html);
  CHECK_THAT(*html, Contains(common::sha256Hex(bytes)));
  CHECK_THAT(*html, Contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;"));
  CHECK_THAT(*html, Contains("PO &quot;7&quot; &amp; co"));
  CHECK(html->find("<script>") == std::string::npos);
  CHECK_THAT(*html, Contains("GPU-2"));
  CHECK_THAT(*html, Contains("agent-wipe-report.json"));
  CHECK(certificateHtml("[1]").error().code == "malformed_certificate");
}

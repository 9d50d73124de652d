// Sanitization certificates over HTTP: the document, signature and HTML byte for byte as stored
// and signed, listings by node and by device serial, and the public key served without a token
// (read back, it verifies the certificate as an auditor would offline).
#include <catch2/catch.hpp>

#include <chrono>
#include <thread>

#include <httplib.h>

#include "images/signing.hpp"
#include "inventory/decommissions.hpp"
#include "inventory/migrations.hpp"
#include "inventory/nodes.hpp"
#include "provisioner/api/api.hpp"
#include "support/service_fixture.hpp"
#include "support/test_database.hpp"
#include "workflows/decommission/certificate.hpp"

using nlohmann::json;
using testing::ServiceFixture;
namespace decom = workflows::decommission;

namespace {

const inventory::DecommissionTime kAt =
    inventory::DecommissionTime(std::chrono::seconds(1'796'000'000));

struct Issued {
  inventory::Id node_id = 0;
  inventory::Certificate certificate;
};

decom::CertificateInput certificateInput(const std::string& serial, inventory::Id decommission,
                                         const images::KeyPair& key) {
  decom::CertificateInput in;
  in.node = {"1", serial, "5c:ff:35:00:00:01", "DGX H100", "PO-1"};
  in.decommission_id = std::to_string(decommission);
  in.reason = "disposal";
  in.requested_by = "test-operator";
  in.started_at = "2026-12-03T10:00:00Z";
  in.finished_at = "2026-12-03T11:00:00Z";
  in.disposition = "retired";
  decom::SanitizedDevice gpu;
  gpu.manufacturer = "NVIDIA";
  gpu.model = "H100";
  gpu.serial = serial + "-GPU0";
  gpu.media_type = "gpu_hbm";
  gpu.method = "clear";
  gpu.technique = "pattern+random+zero overwrite <all>";  // escaped in the HTML
  gpu.tool = "provisioner-agent";
  gpu.tool_version = "1.0";
  gpu.verification_method = "full read-back on device";
  gpu.verification_coverage = 0.99;
  gpu.result = "passed";
  gpu.started_at = in.started_at;
  gpu.finished_at = in.finished_at;
  gpu.verified_by = "provisioner-agent verify pass";
  in.devices = {gpu};
  in.evidence = {{"agent-wipe-report.json", std::string(64, 'a')}};
  in.key_id = key.key_id;
  in.issued_at = in.finished_at;
  return in;
}

inventory::DeviceSanitization sanitized(const std::string& serial) {
  inventory::DeviceSanitization d;
  d.serial = serial;
  d.media_type = "gpu_hbm";
  d.sanitization = "clear";
  d.result = "passed";
  d.verification_coverage = 0.99;
  return d;
}

// A ready node decommissioned and certified as the workflow would: a really signed document.
Issued certifiedNode(inventory::Database& db, const std::string& serial,
                     const images::KeyPair& key) {
  inventory::NodeSpec spec;
  spec.chassis_serial = serial;
  auto node = inventory::createNode(db, spec, "test");
  REQUIRE(node);
  REQUIRE(inventory::setNodeState(db, node->id, "ready", "test", "brought up"));
  auto d = inventory::createDecommission(db, {node->id, "disposal", "test-operator", "", 7, kAt});
  REQUIRE(d);
  REQUIRE(inventory::recordDeviceSanitizations(db, d->id, {sanitized(serial + "-GPU0")}));
  auto document = decom::buildCertificate(certificateInput(serial, d->id, key));
  REQUIRE(document);
  auto signature = decom::signCertificate(*document, key.private_pem);
  REQUIRE(signature);
  inventory::Certificate c;
  c.key_id = key.key_id;
  c.document = *document;
  c.signature = *signature;
  auto issued = inventory::finishWithCertificate(db, d->id, c, "retired", kAt);
  REQUIRE(issued);
  return {node->id, *issued};
}

std::string certificatePath(inventory::Id id, const std::string& part = "") {
  return "/api/v1/certificates/" + std::to_string(id) + (part.empty() ? "" : "/" + part);
}

// The service's routes with a certificate key in the context (ServiceFixture has none).
class KeyedService {
 public:
  explicit KeyedService(const std::string& public_pem) : url_(testing::freshDatabaseUrl()) {
    auto files = inventory::loadMigrations(testing::migrationsDir());
    REQUIRE(files);
    REQUIRE(inventory::applyMigrations(url_, *files));
    auto db = inventory::Database::connect(url_, 2);
    REQUIRE(db);
    provisioner::http::ServerOptions options;
    options.port = 0;
    options.threads = 2;
    auto metrics = std::make_shared<provisioner::http::MetricsRegistry>();
    server_ = std::make_unique<provisioner::http::ApiServer>(
        options, provisioner::api::makeAuthenticator(*db), provisioner::api::makeAuditSink(*db),
        metrics);
    provisioner::api::ApiContext context;
    context.db = *db;
    context.metrics = metrics;
    context.certificate_public_key_pem = public_pem;
    auto port = server_->bind();
    REQUIRE(port);
    port_ = *port;
    provisioner::api::registerRoutes(*server_, context);
    thread_ = std::thread([this] { server_->run(); });
  }
  ~KeyedService() {
    server_->stop();
    thread_.join();
  }
  httplib::Result get(const std::string& path) {
    httplib::Client client("127.0.0.1", port_);
    return client.Get(path.c_str());
  }

 private:
  std::string url_;
  std::unique_ptr<provisioner::http::ApiServer> server_;
  std::thread thread_;
  int port_ = 0;
};

}  // namespace

TEST_CASE("a certificate's document, signature and page are served byte for byte",
          "[integration][api][certificates]") {
  ServiceFixture svc;
  auto key = images::generateKeyPair();
  REQUIRE(key);
  const auto issued = certifiedNode(svc.db(), "CERT-1", *key);
  const auto& c = issued.certificate;

  auto document = svc.get(certificatePath(c.id), "viewer");
  REQUIRE(document.status == 200);
  CHECK(document.content_type.starts_with("application/json"));
  CHECK(document.body == c.document);

  auto signature = svc.get(certificatePath(c.id, "signature"), "viewer");
  REQUIRE(signature.status == 200);
  CHECK(signature.content_type == "application/octet-stream");
  CHECK(signature.body.size() == 64);
  CHECK(signature.body == c.signature);
  // What was served verifies against the key, as `provisioner cert verify` would check it.
  auto verified = decom::verifyCertificate(document.body, signature.body, key->public_pem);
  REQUIRE(verified);
  CHECK(verified->chassis_serial == "CERT-1");

  auto html = svc.get(certificatePath(c.id, "html"), "viewer");
  REQUIRE(html.status == 200);
  CHECK(html.content_type.starts_with("text/html"));
  CHECK(html.body == *decom::certificateHtml(c.document));
  CHECK(html.body.find(c.document_sha256) != std::string::npos);
  CHECK(html.body.find("<all>") == std::string::npos);

  CHECK(svc.get(certificatePath(c.id)).status == 200);
  auto anonymous = svc.anonymous("GET", certificatePath(c.id));
  CHECK(anonymous.status == 401);
  auto missing = svc.get(certificatePath(987654), "viewer");
  CHECK(missing.status == 404);
  CHECK(missing.json()["code"] == "certificate_not_found");
  CHECK(svc.get("/api/v1/certificates/abc", "viewer").json()["code"] == "invalid_field");
}

TEST_CASE("certificates are listed by node and by device serial",
          "[integration][api][certificates]") {
  ServiceFixture svc;
  auto key = images::generateKeyPair();
  REQUIRE(key);
  const auto one = certifiedNode(svc.db(), "CERT-A", *key);
  certifiedNode(svc.db(), "CERT-B", *key);

  auto by_node =
      svc.get("/api/v1/nodes/" + std::to_string(one.node_id) + "/certificates", "viewer");
  REQUIRE(by_node.status == 200);
  REQUIRE(by_node.json()["items"].size() == 1);
  const auto item = by_node.json()["items"][0];
  CHECK(item["id"] == one.certificate.id);
  CHECK(item["document_sha256"] == one.certificate.document_sha256);
  CHECK(item["key_id"] == key->key_id);
  CHECK(item["links"]["signature"] == certificatePath(one.certificate.id, "signature"));

  auto by_device = svc.get("/api/v1/certificates?serial=CERT-A-GPU0", "asset");
  REQUIRE(by_device.status == 200);
  REQUIRE(by_device.json()["items"].size() == 1);
  CHECK(by_device.json()["items"][0]["id"] == one.certificate.id);
  auto by_chassis = svc.get("/api/v1/certificates?serial=CERT-B", "viewer");
  REQUIRE(by_chassis.status == 200);
  CHECK(by_chassis.json()["items"].size() == 1);
  CHECK(svc.get("/api/v1/certificates?serial=NOPE", "viewer").json()["items"].empty());

  auto no_serial = svc.get("/api/v1/certificates", "viewer");
  CHECK(no_serial.status == 400);
  CHECK(no_serial.json()["field"] == "serial");
  CHECK(svc.get("/api/v1/nodes/99999/certificates", "viewer").status == 404);
}

TEST_CASE("the certificate public key is served to anyone, and never taken for an id",
          "[integration][api][certificates]") {
  SECTION("a service without a key says so") {
    ServiceFixture svc;
    auto unavailable = svc.anonymous("GET", "/api/v1/certificates/public-key");
    CHECK(unavailable.status == 503);
    CHECK(unavailable.json()["code"] == "certificate_key_unavailable");
  }
  SECTION("the key the service signs with, exactly") {
    auto key = images::generateKeyPair();
    REQUIRE(key);
    KeyedService svc(key->public_pem);
    auto served = svc.get("/api/v1/certificates/public-key");
    REQUIRE(served);
    CHECK(served->status == 200);
    CHECK(served->get_header_value("Content-Type") == "application/x-pem-file");
    CHECK(served->body == key->public_pem);
    auto parsed = images::parsePublicKeyPem(served->body);
    REQUIRE(parsed);
    CHECK(parsed->key_id == key->key_id);
  }
}

// provisionerctl for decommissions, certificates and dispositions against a fake API: the requests
// it sends, what it prints, and the certificate files written byte for byte.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "integration/cli_fake_server.hpp"

using nlohmann::json;
using testing::FakeApiServer;
using testing::runCtlAt;

namespace {

const std::string kToken = "tok-decom";

std::string readFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TEST_CASE("nodes decommission posts the reason and says how to follow it", "[integration][cli]") {
  FakeApiServer server;
  server.answer("POST", "/api/v1/nodes/7/decommission",
                {202, R"({"id":3,"node_id":7,"state":"running","run_id":41})"});

  auto run = runCtlAt(server.url(), kToken,
                      {"nodes", "decommission", "7", "--reason", "rma", "--note", "fan"});
  CHECK(run.err.empty());
  CHECK(run.code == 0);
  CHECK(run.out ==
        "decommission 3 of node 7 started (run 41); follow it with: provisionerctl "
        "decommissions show 3\n");
  auto requests = server.requests();
  REQUIRE(requests.size() == 1);
  CHECK(json::parse(requests[0].body) == json{{"reason", "rma"}, {"note", "fan"}});
  CHECK(requests[0].header("Authorization") == "Bearer " + kToken);

  auto missing = runCtlAt(server.url(), kToken, {"nodes", "decommission", "7"});
  CHECK(missing.code != 0);
  CHECK(missing.err.find("--reason") != std::string::npos);
  auto not_id = runCtlAt(server.url(), kToken, {"nodes", "decommission", "x", "--reason", "rma"});
  CHECK(not_id.code != 0);
  CHECK(server.requests().size() == 1);  // neither reached the service
}

TEST_CASE("a refused decommission shows the service's code", "[integration][cli]") {
  FakeApiServer server;
  server.answer("POST", "/api/v1/nodes/7/decommission",
                {409,
                 R"({"code":"decommission_open","detail":"node 7 is already being decommissioned",)"
                 R"("status":409})",
                 "application/problem+json"});
  auto run = runCtlAt(server.url(), kToken, {"nodes", "decommission", "7", "--reason", "rma"});
  CHECK(run.code != 0);
  CHECK(run.err.find("decommission_open") != std::string::npos);
}

TEST_CASE("decommissions show lists each device and the evidence", "[integration][cli]") {
  FakeApiServer server;
  server.answer("GET", "/api/v1/decommissions/3",
                {200, json{{"id", 3},
                           {"node_id", 7},
                           {"chassis_serial", "SN7"},
                           {"reason", "rma"},
                           {"state", "failed"},
                           {"failure", {{"reason", "GPU-1 kept stuck bits"}}},
                           {"devices",
                            {{{"serial", "GPU-1"},
                              {"media_type", "gpu_hbm"},
                              {"model", "H100"},
                              {"sanitization", "clear"},
                              {"technique", "overwrite"},
                              {"verification_method", "read-back"},
                              {"verification_coverage", 0.5},
                              {"result", "failed"},
                              {"failure", "stuck bits"}}}},
                           {"evidence", {{{"name", "agent-report"}, {"sha256", "ab12"}}}}}
                          .dump()});
  auto run = runCtlAt(server.url(), kToken, {"decommissions", "show", "3"});
  CHECK(run.code == 0);
  CHECK(run.out.find("GPU-1 kept stuck bits") != std::string::npos);
  CHECK(run.out.find("Devices (1)") != std::string::npos);
  CHECK(run.out.find("stuck bits") != std::string::npos);
  CHECK(run.out.find("Evidence (1)") != std::string::npos);
  CHECK(run.out.find("ab12") != std::string::npos);
}

TEST_CASE("certificates get writes the served bytes and prints the openssl command",
          "[integration][cli]") {
  FakeApiServer server;
  const std::string document = "{\n  \"schema\": \"x\"\n}\n";
  std::string signature(64, '\0');
  for (int i = 0; i < 64; ++i) signature[i] = static_cast<char>(i * 4);  // binary, with NULs
  server.answer("GET", "/api/v1/certificates/5", {200, document});
  server.answer("GET", "/api/v1/certificates/5/signature",
                {200, signature, "application/octet-stream"});
  server.answer("GET", "/api/v1/certificates/5/html", {200, "<html></html>", "text/html"});
  server.answer("GET", "/api/v1/certificates/public-key",
                {200, "-----BEGIN PUBLIC KEY-----\nAA\n-----END PUBLIC KEY-----\n",
                 "application/x-pem-file"});
  testing::TempDir tmp;
  const auto dir = std::filesystem::path(tmp.write("marker", "")).parent_path() / "out";

  auto run = runCtlAt(server.url(), kToken, {"certificates", "get", "5", "--out", dir.string()});
  INFO(run.err);
  REQUIRE(run.code == 0);
  CHECK(readFile(dir / "certificate-5.json") == document);
  CHECK(readFile(dir / "certificate-5.sig") == signature);
  CHECK(readFile(dir / "certificate-5.html") == "<html></html>");
  CHECK(readFile(dir / "certificate-public-key.pem").starts_with("-----BEGIN PUBLIC KEY-----"));
  const std::string command = "openssl pkeyutl -verify -pubin -inkey " +
                              (dir / "certificate-public-key.pem").string() + " -rawin -in " +
                              (dir / "certificate-5.json").string() + " -sigfile " +
                              (dir / "certificate-5.sig").string() + "\n";
  CHECK(run.out.ends_with(command));

  auto key = runCtlAt(server.url(), kToken, {"certificates", "public-key"});
  CHECK(key.code == 0);
  CHECK(key.out == "-----BEGIN PUBLIC KEY-----\nAA\n-----END PUBLIC KEY-----\n");
}

TEST_CASE("certificates list asks by node or by serial, one of them", "[integration][cli]") {
  FakeApiServer server;
  const std::string page =
      R"({"items":[{"id":5,"decommission_id":3,"node_id":7,"issued_at":"2026-12-03T11:00:00Z",)"
      R"("key_id":"ed25519:00","document_sha256":"ff"}]})";
  server.answer("GET", "/api/v1/certificates", {200, page});
  server.answer("GET", "/api/v1/nodes/7/certificates", {200, page});
  auto by_serial = runCtlAt(server.url(), kToken, {"certificates", "list", "--serial", "GPU 1"});
  CHECK(by_serial.code == 0);
  CHECK(by_serial.out.find("ed25519:00") != std::string::npos);
  auto by_node = runCtlAt(server.url(), kToken, {"certificates", "list", "--node", "7"});
  CHECK(by_node.code == 0);
  auto requests = server.requests();
  REQUIRE(requests.size() == 2);
  CHECK(requests[0].param("serial") == "GPU 1");
  CHECK(requests[1].path == "/api/v1/nodes/7/certificates");
  CHECK(runCtlAt(server.url(), kToken, {"certificates", "list"}).code != 0);
  CHECK(runCtlAt(server.url(), kToken, {"certificates", "list", "--node", "7", "--serial", "S"})
            .code != 0);
}

TEST_CASE("asset disposition sends one disposition and its fields", "[integration][cli]") {
  FakeApiServer server;
  server.answer("POST", "/api/v1/assets/GPU-9/disposition",
                {201, R"({"id":2,"disposition":"rma","asset_type":"component"})"});
  auto run = runCtlAt(server.url(), kToken,
                      {"asset", "disposition", "GPU-9", "--rma", "--ticket", "RMA-1", "--vendor",
                       "NVIDIA", "--shipped", "2026-12-01", "--replacement", "GPU-10"});
  INFO(run.err);
  CHECK(run.code == 0);
  CHECK(run.out == "recorded rma for GPU-9 (component, disposition 2)\n");
  auto requests = server.requests();
  REQUIRE(requests.size() == 1);
  CHECK(json::parse(requests[0].body) == json{{"disposition", "rma"},
                                              {"rma_ticket", "RMA-1"},
                                              {"rma_vendor", "NVIDIA"},
                                              {"shipped_on", "2026-12-01"},
                                              {"replacement_serial", "GPU-10"}});

  server.answer("POST", "/api/v1/assets/SN7/disposition",
                {201, R"({"id":3,"disposition":"recycled","asset_type":"node"})"});
  auto recycled = runCtlAt(server.url(), kToken,
                           {"asset", "disposition", "SN7", "--recycled", "--recycler", "GreenCycle",
                            "--recycler-certificate", "GC-1", "--weight", "31.5"});
  CHECK(recycled.code == 0);
  REQUIRE(server.requests().size() == 2);
  CHECK(json::parse(server.requests()[1].body)["weight_kg"] == 31.5);

  CHECK(runCtlAt(server.url(), kToken, {"asset", "disposition", "SN7"}).code != 0);
  CHECK(runCtlAt(server.url(), kToken, {"asset", "disposition", "SN7", "--rma", "--spare"}).code !=
        0);
  CHECK(runCtlAt(server.url(), kToken,
                 {"asset", "disposition", "SN7", "--recycled", "--weight", "heavy"})
            .code != 0);
  CHECK(server.requests().size() == 2);
}

TEST_CASE("po end-of-life prints the counts per model and the total", "[integration][cli]") {
  FakeApiServer server;
  server.answer("GET", "/api/v1/purchase-orders/PO-1/end-of-life",
                {200, json{{"po_number", "PO-1"},
                           {"models",
                            {{{"model", "DGX H100"},
                              {"units", 3},
                              {"retired", 2},
                              {"rma", 1},
                              {"spare", 1},
                              {"redeploy", 0},
                              {"recycled", 0}}}},
                           {"totals",
                            {{"units", 3},
                             {"retired", 2},
                             {"rma", 1},
                             {"spare", 1},
                             {"redeploy", 0},
                             {"recycled", 0}}}}
                          .dump()});
  auto run = runCtlAt(server.url(), kToken, {"po", "end-of-life", "PO-1"});
  CHECK(run.code == 0);
  CHECK(run.out ==
        "MODEL     UNITS  RETIRED  RMA  SPARE  REDEPLOY  RECYCLED\n"
        "DGX H100  3      2        1    1      0         0\n"
        "TOTAL     3      2        1    1      0         0\n");
}

TEST_CASE("asset show names the current disposition", "[integration][cli]") {
  FakeApiServer server;
  server.answer("GET", "/api/v1/assets/SN7",
                {200, json{{"serial", "SN7"},
                           {"asset_type", "node"},
                           {"state", "retired"},
                           {"disposition",
                            {{"disposition", "rma"},
                             {"rma_ticket", "RMA-1"},
                             {"replacement_serial", "SN8"},
                             {"recorded_by", "alice"}}},
                           {"history", json::array()}}
                          .dump()});
  auto run = runCtlAt(server.url(), kToken, {"asset", "show", "SN7"});
  CHECK(run.code == 0);
  const auto at = run.out.find("\nDisposition\n");
  REQUIRE(at != std::string::npos);
  CHECK(run.out.find("RMA-1", at) != std::string::npos);
  CHECK(run.out.find("SN8", at) != std::string::npos);

  server.answer("GET", "/api/v1/assets/SN9",
                {200, R"({"serial":"SN9","asset_type":"node","disposition":null})"});
  auto none = runCtlAt(server.url(), kToken, {"asset", "show", "SN9"});
  CHECK(none.code == 0);
  CHECK(none.out.find("\nDisposition\n") == std::string::npos);
}

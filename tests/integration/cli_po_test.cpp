#include <catch2/catch.hpp>

#include "integration/cli_fake_server.hpp"

using testing::CannedResponse;
using testing::FakeApiServer;
using testing::runCtlAt;

namespace {

const std::string kToken = "tok-123-secret";

const std::string kPurchaseOrder =
    R"({"po_number":"PO-2026-0042","vendor":"Acme Corp","status":"open","asset_count":2,)"
    R"("created_at":"2026-01-05T10:00:00Z","updated_at":"2026-01-05T10:00:00Z",)"
    R"("line_items":[{"line_no":1,"model":"DGX H100","quantity":2,"gpu_count":8,)"
    R"("description":"DGX H100 640GB"}],)"
    R"("assets":[{"chassis_serial":"1654422000001","model":"DGX H100",)"
    R"("bmc_mac":"5c:ff:35:00:00:01","gpu_count":8,"rack":"R01","u_position":2,"line_no":1,)"
    R"("has_factory_password":true},)"
    R"({"chassis_serial":"1654422000002","model":"DGX H100","bmc_mac":"5c:ff:35:00:00:02",)"
    R"("gpu_count":8,"rack":"R01","u_position":6,"line_no":1,"has_factory_password":false}]})";

const std::string kPurchaseOrderText =
    "PO number:  PO-2026-0042\n"
    "Vendor:     Acme Corp\n"
    "Status:     open\n"
    "Assets:     2\n"
    "Created:    2026-01-05T10:00:00Z\n"
    "Updated:    2026-01-05T10:00:00Z\n"
    "\n"
    "Line items (1)\n"
    "LINE  MODEL     QTY  GPUS  DESCRIPTION\n"
    "1     DGX H100  2    8     DGX H100 640GB\n"
    "\n"
    "Assets (2)\n"
    "SERIAL         MODEL     BMC MAC            GPUS  RACK  U  LINE  PASSWORD\n"
    "1654422000001  DGX H100  5c:ff:35:00:00:01  8     R01   2  1     yes\n"
    "1654422000002  DGX H100  5c:ff:35:00:00:02  8     R01   6  1     no\n";

const std::string kCsv =
    "serial,model,bmc_mac,factory_password,rack,u\n"
    "1654422000001,DGX H100,5C:FF:35:00:00:01,s3cret,R01,2\n"
    "1654422000002,DGX H100,5c:ff:35:00:00:02,s3cret,R01,6\n";

const std::string kDuplicateProblem =
    R"({"type":"https://provisioner.dev/problems/duplicate_serial","title":"Conflict",)"
    R"("status":409,"code":"duplicate_serial","detail":"chassis serial SN123 is already on PO-7",)"
    R"("field":"line 7","request_id":"5f0c9a"})";

}  // namespace

TEST_CASE("po import posts the CSV as text/csv with PO, vendor and bearer token",
          "[integration][cli]") {
  FakeApiServer server;
  server.answer("POST", "/api/v1/purchase-orders/import", {201, kPurchaseOrder});
  testing::TempDir dir;
  std::string file = dir.write("asn.csv", kCsv);

  auto run = runCtlAt(server.url(), kToken,
                      {"po", "import", file, "--po", "PO-2026-0042", "--vendor", "Acme Corp"});

  CHECK(run.err.empty());
  CHECK(run.code == 0);
  CHECK(run.out == "Imported " + file + " into PO-2026-0042\n\n" + kPurchaseOrderText);
  auto requests = server.requests();
  REQUIRE(requests.size() == 1);
  const auto& req = requests[0];
  CHECK(req.method == "POST");
  CHECK(req.target == "/api/v1/purchase-orders/import?po_number=PO-2026-0042&vendor=Acme%20Corp");
  CHECK(req.param("po_number") == "PO-2026-0042");
  CHECK(req.param("vendor") == "Acme Corp");
  CHECK(req.header("Content-Type") == "text/csv");
  CHECK(req.header("Authorization") == "Bearer " + kToken);
  CHECK(req.body == kCsv);
}

TEST_CASE("po import: a problem+json 409 exits 1 with the formatted error", "[integration][cli]") {
  FakeApiServer server;
  server.answer("POST", "/api/v1/purchase-orders/import",
                {409, kDuplicateProblem, "application/problem+json"});
  testing::TempDir dir;
  std::string file = dir.write("asn.csv", kCsv);

  auto run = runCtlAt(server.url(), kToken,
                      {"po", "import", file, "--po", "PO-2026-0042", "--vendor", "NVIDIA"});

  CHECK(run.code == 1);
  CHECK(run.out.empty());
  CHECK(run.err ==
        "error: chassis serial SN123 is already on PO-7 (duplicate_serial, field line 7) "
        "[HTTP 409, request 5f0c9a]\n");
  CHECK(run.err.find(kToken) == std::string::npos);
}

TEST_CASE("po import: an unreadable file exits 1 before any request", "[integration][cli]") {
  FakeApiServer server;
  auto run = runCtlAt(server.url(), kToken,
                      {"po", "import", "/nonexistent/asn.csv", "--po", "P", "--vendor", "V"});
  CHECK(run.code == 1);
  CHECK(run.err == "error: cannot read /nonexistent/asn.csv: No such file or directory\n");
  CHECK(server.requests().empty());
}

TEST_CASE("po show: tables by default, the server's JSON with --json", "[integration][cli]") {
  FakeApiServer server;
  server.answer("GET", "/api/v1/purchase-orders/PO 1/2", {200, kPurchaseOrder});

  auto table = runCtlAt(server.url(), kToken, {"po", "show", "PO 1/2"});
  CHECK(table.code == 0);
  CHECK(table.out == kPurchaseOrderText);

  auto json = runCtlAt(server.url(), kToken, {"po", "show", "PO 1/2", "--json"});
  CHECK(json.code == 0);
  CHECK(json.out == kPurchaseOrder + "\n");

  auto requests = server.requests();
  REQUIRE(requests.size() == 2);
  CHECK(requests[0].target == "/api/v1/purchase-orders/PO%201%2F2");
}

TEST_CASE("po list: one page, a hint on stderr when there are more", "[integration][cli]") {
  FakeApiServer server;
  server.answer("GET", "/api/v1/purchase-orders",
                {200, R"({"items":[{"po_number":"PO-1","vendor":"NVIDIA","status":"open",)"
                      R"("asset_count":16,"created_at":"2026-01-01","updated_at":"2026-01-02"}],)"
                      R"("next_cursor":"abc"})"});

  auto run = runCtlAt(server.url(), kToken, {"po", "list", "--limit", "1"});
  CHECK(run.code == 0);
  CHECK(run.out ==
        "PO NUMBER  VENDOR  STATUS  ASSETS  CREATED     UPDATED\n"
        "PO-1       NVIDIA  open    16      2026-01-01  2026-01-02\n");
  CHECK(run.err == "(more results: use --all, or --limit to change the page size)\n");
  REQUIRE(server.requests().size() == 1);
  CHECK(server.requests()[0].target == "/api/v1/purchase-orders?limit=1");
}

TEST_CASE("po reconcile: counts, then one section per outcome", "[integration][cli]") {
  FakeApiServer server;
  server.answer(
      "GET", "/api/v1/purchase-orders/PO-1/reconciliation",
      {200, R"({"po_number":"PO-1","counts":{"expected":4,"received":1,"mismatched":1,)"
            R"("missing":2,"unexpected":1},)"
            R"("received":[{"chassis_serial":"S1","node_id":3,"node_serial":"S1"}],)"
            R"("mismatched":[{"chassis_serial":"S2","node_id":4,"node_serial":"S2",)"
            R"("mismatches":[{"field":"gpu_count","expected":"8","actual":"7"},)"
            R"({"field":"model","expected":"DGX H100","actual":"DGX H200"}]}],)"
            R"("missing":[{"chassis_serial":"S3"},{"chassis_serial":"S4"}],)"
            R"("unexpected":[{"id":9,"state":"quarantined","hardware_model":"HGX H100",)"
            R"("chassis_serial":"X9","bmc_mac":"aa:bb:cc:dd:ee:ff","site":"fra1","rack":"R02",)"
            R"("u_position":10}]})"});

  auto run = runCtlAt(server.url(), kToken, {"po", "reconcile", "PO-1"});
  CHECK(run.code == 0);
  CHECK(run.out ==
        "PO number:   PO-1\n"
        "Expected:    4\n"
        "Received:    1\n"
        "Mismatched:  1\n"
        "Missing:     2\n"
        "Unexpected:  1\n"
        "\n"
        "Received (1)\n"
        "SERIAL  NODE  NODE SERIAL\n"
        "S1      3     S1\n"
        "\n"
        "Mismatched (1)\n"
        "SERIAL  NODE  NODE SERIAL  FIELD      EXPECTED  ACTUAL\n"
        "S2      4     S2           gpu_count  8         7\n"
        "S2      4     S2           model      DGX H100  DGX H200\n"
        "\n"
        "Missing (2)\n"
        "SERIAL\n"
        "S3\n"
        "S4\n"
        "\n"
        "Unexpected (1)\n"
        "NODE  STATE        MODEL     SERIAL  BMC MAC            SITE  RACK  U\n"
        "9     quarantined  HGX H100  X9      aa:bb:cc:dd:ee:ff  fra1  R02   10\n");
}

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "integration/cli_fake_server.hpp"

using testing::CannedResponse;
using testing::FakeApiServer;
using testing::RecordedRequest;
using testing::runCtlAt;

namespace {

const std::string kToken = "tok-nodes";

std::string node(int id, const std::string& state, const std::string& rack,
                 const std::string& reason = "") {
  const std::string reason_json = reason.empty() ? "null" : "\"" + reason + "\"";
  return R"({"id":)" + std::to_string(id) + R"(,"state":")" + state + R"(","state_reason":)" +
         reason_json + R"(,"hardware_model":"DGX H100","chassis_serial":"SN)" + std::to_string(id) +
         R"(","bmc_address":"10.0.0.)" + std::to_string(id) + R"(","bmc_mac":"5c:ff:35:00:00:0)" +
         std::to_string(id) + R"(","rack_id":1,)" + R"("site":"fra1","rack":")" + rack +
         R"(","u_position":)" + std::to_string(id * 4) +
         R"(,"gpu_count":8,"created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z"})";
}

std::string page(const std::string& items, const std::string& nextCursor) {
  return R"({"items":[)" + items + R"(],"next_cursor":)" +
         (nextCursor.empty() ? "null" : "\"" + nextCursor + "\"") + "}";
}

// Three pages chained by cursor: (none) -> c2 -> c3 -> end.
CannedResponse pagedNodes(const RecordedRequest& req) {
  std::string cursor = req.param("cursor");
  if (cursor.empty()) return {200, page(node(1, "ready", "R01"), "c2")};
  if (cursor == "c2")
    return {200, page(node(2, "ready", "R01") + "," +
                          node(3, "quarantined", "R01", "serial SN3 not on order"),
                      "c3")};
  if (cursor == "c3") return {200, page(node(4, "ready", "R01"), "")};
  return {400, R"({"code":"invalid_cursor","detail":"bad cursor","status":400})",
          "application/problem+json"};
}

}  // namespace

TEST_CASE("nodes list sends the filters as query parameters", "[integration][cli]") {
  FakeApiServer server;
  const std::string body = page(node(1, "ready", "R01"), "");
  server.answer("GET", "/api/v1/nodes", {200, body});

  auto run = runCtlAt(server.url(), kToken, {"nodes", "list", "--rack", "R01", "--state", "ready"});

  CHECK(run.err.empty());
  CHECK(run.code == 0);
  CHECK(run.out ==
        "ID  STATE  MODEL     SERIAL  BMC ADDRESS  SITE  RACK  U  GPUS  REASON\n"
        "1   ready  DGX H100  SN1     10.0.0.1     fra1  R01   4  8     -\n");
  auto requests = server.requests();
  REQUIRE(requests.size() == 1);
  CHECK(requests[0].method == "GET");
  CHECK(requests[0].target == "/api/v1/nodes?rack=R01&state=ready");
  CHECK(requests[0].header("Authorization") == "Bearer " + kToken);
  CHECK(requests[0].header("Accept") == "application/json, application/problem+json");
}

TEST_CASE("nodes list --json prints the server's page as sent", "[integration][cli]") {
  FakeApiServer server;
  const std::string body = page(node(1, "ready", "R01"), "c2");
  server.answer("GET", "/api/v1/nodes", {200, body});

  auto run = runCtlAt(server.url(), kToken, {"--json", "nodes", "list", "--model", "DGX H100"});
  CHECK(run.code == 0);
  CHECK(run.out == body + "\n");
  REQUIRE(server.requests().size() == 1);
  CHECK(server.requests()[0].target == "/api/v1/nodes?model=DGX%20H100");
}

TEST_CASE("nodes list --all follows next_cursor across pages", "[integration][cli]") {
  FakeApiServer server;
  server.answerWith("GET", "/api/v1/nodes", pagedNodes);

  auto run =
      runCtlAt(server.url(), kToken, {"nodes", "list", "--all", "--limit", "2", "--rack", "R01"});

  CHECK(run.err.empty());
  CHECK(run.code == 0);
  CHECK(run.out ==
        "ID  STATE        MODEL     SERIAL  BMC ADDRESS  SITE  RACK  U   GPUS  REASON\n"
        "1   ready        DGX H100  SN1     10.0.0.1     fra1  R01   4   8     -\n"
        "2   ready        DGX H100  SN2     10.0.0.2     fra1  R01   8   8     -\n"
        "3   quarantined  DGX H100  SN3     10.0.0.3     fra1  R01   12  8     serial SN3 not on "
        "order\n"
        "4   ready        DGX H100  SN4     10.0.0.4     fra1  R01   16  8     -\n");
  auto requests = server.requests();
  REQUIRE(requests.size() == 3);
  CHECK(requests[0].target == "/api/v1/nodes?rack=R01&limit=2");
  CHECK(requests[1].target == "/api/v1/nodes?rack=R01&limit=2&cursor=c2");
  CHECK(requests[2].target == "/api/v1/nodes?rack=R01&limit=2&cursor=c3");
}

TEST_CASE("nodes list --all --json merges the pages into one document", "[integration][cli]") {
  FakeApiServer server;
  server.answerWith("GET", "/api/v1/nodes", pagedNodes);

  auto run = runCtlAt(server.url(), kToken, {"nodes", "list", "--all", "--json"});
  CHECK(run.code == 0);
  auto doc = nlohmann::json::parse(run.out);
  auto expected = nlohmann::json::parse(page(
      node(1, "ready", "R01") + "," + node(2, "ready", "R01") + "," +
          node(3, "quarantined", "R01", "serial SN3 not on order") + "," + node(4, "ready", "R01"),
      ""));
  CHECK(doc == expected);
}

TEST_CASE("nodes list --all stops when the server repeats a cursor", "[integration][cli]") {
  FakeApiServer server;
  server.answer("GET", "/api/v1/nodes", {200, page(node(1, "ready", "R01"), "same")});

  auto run = runCtlAt(server.url(), kToken, {"nodes", "list", "--all"});
  CHECK(run.code == 1);
  CHECK(run.err ==
        "error: the server repeated a page cursor while listing /api/v1/nodes (bad_response)\n");
  CHECK(server.requests().size() == 2);
}

TEST_CASE("nodes show: details, components and timeline", "[integration][cli]") {
  FakeApiServer server;
  std::string body = node(7, "burn_in", "R03");
  body.pop_back();
  body += R"(,"components":[{"id":70,"kind":"gpu","slot":"GPU0","manufacturer":"NVIDIA",)"
          R"("model":"H100 SXM5","part_number":"692-2G520","serial":"1650923000001",)"
          R"("firmware_version":"96.00.5E.00.01","installed_at":"2026-01-02T00:00:00Z"}],)"
          R"("timeline":[{"id":1,"at":"2026-01-02T00:00:00Z","actor":"workflow","kind":"state",)"
          R"("message":"discovered -> burn_in","detail":{}}]})";
  server.answer("GET", "/api/v1/nodes/7", {200, body});

  auto run = runCtlAt(server.url(), kToken, {"nodes", "show", "7"});
  CHECK(run.code == 0);
  CHECK(run.out ==
        "ID:              7\n"
        "State:           burn_in\n"
        "Reason:          -\n"
        "Model:           DGX H100\n"
        "Chassis serial:  SN7\n"
        "BMC address:     10.0.0.7\n"
        "BMC MAC:         5c:ff:35:00:00:07\n"
        "Site:            fra1\n"
        "Rack:            R03\n"
        "U position:      28\n"
        "GPUs:            8\n"
        "Created:         2026-01-01T00:00:00Z\n"
        "Updated:         2026-01-01T00:00:00Z\n"
        "\n"
        "Components (1)\n"
        "ID  KIND  SLOT  MANUFACTURER  MODEL      SERIAL         FIRMWARE\n"
        "70  gpu   GPU0  NVIDIA        H100 SXM5  1650923000001  96.00.5E.00.01\n"
        "\n"
        "Timeline (1)\n"
        "AT                    ACTOR     KIND   MESSAGE\n"
        "2026-01-02T00:00:00Z  workflow  state  discovered -> burn_in\n");
}

TEST_CASE("nodes show: an unknown id is the server's 404", "[integration][cli]") {
  FakeApiServer server;
  server.answer(
      "GET", "/api/v1/nodes/99",
      {404, R"({"status":404,"code":"node_not_found","detail":"no node 99","request_id":"r1"})",
       "application/problem+json"});
  auto run = runCtlAt(server.url(), kToken, {"nodes", "show", "99"});
  CHECK(run.code == 1);
  CHECK(run.err == "error: no node 99 (node_not_found) [HTTP 404, request r1]\n");
}

TEST_CASE("nodes export asks for CSV and prints it untouched", "[integration][cli]") {
  FakeApiServer server;
  const std::string csv = "id,state,chassis_serial\n1,ready,SN1\n2,ready,SN2\n";
  server.answer("GET", "/api/v1/nodes", {200, csv, "text/csv"});

  auto run = runCtlAt(server.url(), kToken, {"nodes", "export", "--site", "fra1"});
  CHECK(run.code == 0);
  CHECK(run.out == csv);
  REQUIRE(server.requests().size() == 1);
  CHECK(server.requests()[0].target == "/api/v1/nodes?site=fra1&format=csv");
  CHECK(server.requests()[0].header("Accept") == "text/csv");
}

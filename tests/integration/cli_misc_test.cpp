#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "integration/cli_fake_server.hpp"

using testing::FakeApiServer;
using testing::runCtlAt;
using testing::runCtlWithEnv;

namespace {
const std::string kToken = "tok-admin";
}

TEST_CASE("a closed port exits 2 naming the URL", "[integration][cli]") {
  testing::ClosedPort closed;
  std::string url = "http://127.0.0.1:" + std::to_string(closed.port());

  auto run = runCtlAt(url, kToken, {"nodes", "list"});

  CHECK(run.code == 2);
  CHECK(run.out.empty());
  CHECK(run.err == "error: cannot reach the provisioner service at " + url +
                       ": connection refused or host unreachable\n");
}

TEST_CASE("a non-problem error answer still exits 1 with the status", "[integration][cli]") {
  FakeApiServer server;
  server.answer("GET", "/api/v1/audit", {502, "<html>Bad Gateway</html>", "text/html"});
  auto run = runCtlAt(server.url(), kToken, {"audit"});
  CHECK(run.code == 1);
  CHECK(run.err == "error: the server answered without a problem+json body [HTTP 502]\n");
}

TEST_CASE("a 2xx answer that is not JSON is reported, not trusted", "[integration][cli]") {
  FakeApiServer server;
  server.answer("GET", "/api/v1/audit", {200, "not json", "text/plain"});
  auto run = runCtlAt(server.url(), kToken, {"audit"});
  CHECK(run.code == 1);
  CHECK(run.err ==
        "error: the server answered GET /api/v1/audit with a body that is not JSON (bad_response) "
        "[HTTP 200]\n");
}

TEST_CASE("config file supplies url and token; --url flag beats it", "[integration][cli]") {
  FakeApiServer server;
  server.answer("GET", "/api/v1/audit", {200, R"({"items":[],"next_cursor":null})"});
  testing::TempDir dir;
  std::string config =
      dir.write("ctl.json", R"({"url": ")" + server.url() + R"(", "token": "file-token"})");

  auto fromFile = runCtlWithEnv({}, {"--config", config, "audit"});
  CHECK(fromFile.code == 0);
  CHECK(fromFile.out == "AT  ACTOR  ROLE  METHOD  PATH  STATUS  OUTCOME  REQUEST\n");

  std::string badUrl =
      dir.write("bad.json", R"({"url": "http://127.0.0.1:1", "token": "file-token"})");
  auto flagWins = runCtlWithEnv({}, {"--config", badUrl, "--url", server.url(), "audit"});
  CHECK(flagWins.code == 0);

  auto requests = server.requests();
  REQUIRE(requests.size() == 2);
  CHECK(requests[0].header("Authorization") == "Bearer file-token");
  CHECK(requests[1].header("Authorization") == "Bearer file-token");
}

TEST_CASE("a URL with a path prefix is kept in front of API paths", "[integration][cli]") {
  FakeApiServer server;
  server.answer("GET", "/gpu/api/v1/audit", {200, R"({"items":[],"next_cursor":null})"});
  auto run = runCtlAt(server.url() + "/gpu/", kToken, {"audit", "--limit", "5"});
  CHECK(run.code == 0);
  REQUIRE(server.requests().size() == 1);
  CHECK(server.requests()[0].target == "/gpu/api/v1/audit?limit=5");
}

TEST_CASE("audit lists entries newest first as the server sends them", "[integration][cli]") {
  FakeApiServer server;
  server.answer(
      "GET", "/api/v1/audit",
      {200, R"({"items":[{"id":2,"at":"2026-01-02T00:00:00Z","token_id":1,)"
            R"("actor":"ops","role":"operator","method":"POST","path":"/api/v1/nodes",)"
            R"("action":"node.create","request_id":"r2","status":201,"outcome":"success"}],)"
            R"("next_cursor":null})"});
  auto run = runCtlAt(server.url(), kToken, {"audit", "--limit", "1"});
  CHECK(run.code == 0);
  CHECK(run.out ==
        "AT                    ACTOR  ROLE      METHOD  PATH           STATUS  OUTCOME  REQUEST\n"
        "2026-01-02T00:00:00Z  ops    operator  POST    /api/v1/nodes  201     success  r2\n");
  CHECK(server.requests()[0].target == "/api/v1/audit?limit=1");
}

TEST_CASE("token create posts name and role and shows the new token once", "[integration][cli]") {
  FakeApiServer server;
  server.answer("POST", "/api/v1/tokens",
                {201, R"({"id":7,"name":"ci-bot","role":"operator",)"
                      R"("created_at":"2026-01-03T00:00:00Z","token":"pv_new_token_value"})"});
  auto run =
      runCtlAt(server.url(), kToken, {"token", "create", "--name", "ci-bot", "--role", "operator"});
  CHECK(run.code == 0);
  CHECK(run.out ==
        "Created token 7 'ci-bot' with role operator.\n"
        "It is shown only now; store it safely:\n"
        "pv_new_token_value\n");
  auto requests = server.requests();
  REQUIRE(requests.size() == 1);
  CHECK(requests[0].header("Content-Type") == "application/json");
  CHECK(nlohmann::json::parse(requests[0].body) ==
        nlohmann::json({{"name", "ci-bot"}, {"role", "operator"}}));
}

TEST_CASE("token list and revoke", "[integration][cli]") {
  FakeApiServer server;
  server.answer("GET", "/api/v1/tokens",
                {200, R"({"items":[{"id":1,"name":"root","role":"admin","created_at":"2026-01-01",)"
                      R"("revoked_at":null}],"next_cursor":null})"});
  server.answer("DELETE", "/api/v1/tokens/1",
                {200, R"({"id":1,"name":"root","role":"admin","created_at":"2026-01-01",)"
                      R"("revoked_at":"2026-01-04T00:00:00Z"})"});

  auto list = runCtlAt(server.url(), kToken, {"token", "list"});
  CHECK(list.code == 0);
  CHECK(list.out ==
        "ID  NAME  ROLE   CREATED     REVOKED\n"
        "1   root  admin  2026-01-01  -\n");

  auto revoke = runCtlAt(server.url(), kToken, {"token", "revoke", "1"});
  CHECK(revoke.code == 0);
  CHECK(revoke.out == "Revoked token 1 'root' at 2026-01-04T00:00:00Z.\n");
  CHECK(server.requests().back().method == "DELETE");
}

TEST_CASE("a 403 for a role that may not act exits 1", "[integration][cli]") {
  FakeApiServer server;
  server.answer("POST", "/api/v1/tokens",
                {403,
                 R"({"status":403,"code":"forbidden","detail":"role viewer may not manage tokens",)"
                 R"("request_id":"r9"})",
                 "application/problem+json"});
  auto run = runCtlAt(server.url(), kToken, {"token", "create", "--name", "x", "--role", "admin"});
  CHECK(run.code == 1);
  CHECK(run.err == "error: role viewer may not manage tokens (forbidden) [HTTP 403, request r9]\n");
}

TEST_CASE("asset show: summary, location, components, history", "[integration][cli]") {
  FakeApiServer server;
  server.answer(
      "GET", "/api/v1/assets/1650923000001",
      {200, R"({"serial":"1650923000001","asset_type":"component","kind":"gpu",)"
            R"("manufacturer":"NVIDIA","model":"H100 SXM5","part_number":"692-2G520",)"
            R"("state":"installed","firmware_version":"96.00.5E.00.01",)"
            R"("location":{"site":"fra1","room":"A","row":"3","rack":"R01","u_position":2,)"
            R"("node_id":3,"node_serial":"1654422000001","slot":"GPU0"},"po_number":null,)"
            R"("components":[],"history":[{"at":"2026-01-02T00:00:00Z","event":"installed",)"
            R"("node_id":3,"node_serial":"1654422000001","slot":"GPU0","from_version":null,)"
            R"("to_version":null,"reason":"inventory"}]})"});

  auto run = runCtlAt(server.url(), kToken, {"asset", "show", "1650923000001"});
  CHECK(run.code == 0);
  CHECK(run.out ==
        "Serial:        1650923000001\n"
        "Type:          component\n"
        "Kind:          gpu\n"
        "Manufacturer:  NVIDIA\n"
        "Model:         H100 SXM5\n"
        "Part number:   692-2G520\n"
        "State:         installed\n"
        "Firmware:      96.00.5E.00.01\n"
        "PO number:     -\n"
        "\n"
        "Location\n"
        "Site:         fra1\n"
        "Room:         A\n"
        "Row:          3\n"
        "Rack:         R01\n"
        "U position:   2\n"
        "Node:         3\n"
        "Node serial:  1654422000001\n"
        "Slot:         GPU0\n"
        "\n"
        "History (1)\n"
        "AT                    EVENT      NODE  NODE SERIAL    SLOT  FROM  TO  REASON\n"
        "2026-01-02T00:00:00Z  installed  3     1654422000001  GPU0  -     -   inventory\n");
}

TEST_CASE("https URLs go through TLS: a plain-HTTP server fails the handshake, exit 2",
          "[integration][cli]") {
  FakeApiServer server;
  std::string url = "https://127.0.0.1:" + server.url().substr(server.url().rfind(':') + 1);
  auto run = runCtlAt(url, kToken, {"audit"});
  CHECK(run.code == 2);
  CHECK(run.err ==
        "error: cannot reach the provisioner service at " + url + ": TLS handshake failed\n");
}

// Auth, roles and audit over real HTTP against a real database.
#include <catch2/catch.hpp>

#include "support/service_fixture.hpp"

using nlohmann::json;
using testing::ServiceFixture;

namespace {
const json kPurchaseOrder = {{"po_number", "PO-AUTH-1"}, {"vendor", "Dell"}};
}

TEST_CASE("API calls without a token are 401 with a problem body", "[integration][api][auth]") {
  ServiceFixture svc;
  auto r = svc.anonymous("GET", "/api/v1/nodes");
  CHECK(r.status == 401);
  CHECK(r.content_type.find("application/problem+json") == 0);
  CHECK(r.json()["code"] == "unauthenticated");

  httplib::Client client("127.0.0.1", svc.port());
  auto bad = client.Get("/api/v1/nodes", {{"Authorization", "Bearer prov_not-a-real-token"}});
  REQUIRE(bad);
  CHECK(bad->status == 401);
}

TEST_CASE("public endpoints need no token", "[integration][api][auth]") {
  ServiceFixture svc;
  CHECK(svc.anonymous("GET", "/healthz").status == 200);
  CHECK(svc.anonymous("GET", "/readyz").status == 200);
  CHECK(svc.anonymous("GET", "/metrics").status == 200);
}

TEST_CASE("a role without the permission gets 403 forbidden", "[integration][api][auth]") {
  ServiceFixture svc;
  auto viewer = svc.sendJson("POST", "/api/v1/purchase-orders", kPurchaseOrder, "viewer");
  CHECK(viewer.status == 403);
  CHECK(viewer.json()["code"] == "forbidden");
  CHECK(svc.sendJson("POST", "/api/v1/purchase-orders", kPurchaseOrder, "asset").status == 403);
  CHECK(svc.get("/api/v1/audit", "procurement").status == 403);
  CHECK(svc.get("/api/v1/tokens", "operator").status == 403);
  // ... and the role that has it succeeds.
  CHECK(svc.sendJson("POST", "/api/v1/purchase-orders", kPurchaseOrder, "procurement").status ==
        201);
  CHECK(svc.get("/api/v1/purchase-orders", "viewer").status == 200);
}

TEST_CASE("a revoked token is refused with token_revoked", "[integration][api][auth]") {
  ServiceFixture svc;
  auto created = svc.sendJson("POST", "/api/v1/tokens", {{"name", "ci-bot"}, {"role", "viewer"}});
  REQUIRE(created.status == 201);
  const std::string secret = created.json()["token"];
  const long long id = created.json()["id"];
  CHECK(secret.rfind("prov_", 0) == 0);

  httplib::Client client("127.0.0.1", svc.port());
  httplib::Headers auth{{"Authorization", "Bearer " + secret}};
  CHECK(client.Get("/api/v1/sites", auth)->status == 200);

  auto revoked = svc.send("DELETE", "/api/v1/tokens/" + std::to_string(id), "");
  REQUIRE(revoked.status == 200);
  CHECK_FALSE(revoked.json()["revoked_at"].is_null());

  auto after = client.Get("/api/v1/sites", auth);
  REQUIRE(after);
  CHECK(after->status == 401);
  CHECK(json::parse(after->body)["code"] == "token_revoked");
}

TEST_CASE("token listing never shows secrets or hashes", "[integration][api][auth]") {
  ServiceFixture svc;
  auto list = svc.get("/api/v1/tokens");
  REQUIRE(list.status == 200);
  CHECK(list.json()["items"].size() == 5);
  CHECK(list.body.find(svc.token("viewer")) == std::string::npos);
  CHECK(list.body.find("hash") == std::string::npos);
  CHECK(svc.sendJson("POST", "/api/v1/tokens", {{"name", "x"}, {"role", "root"}}).json()["code"] ==
        "invalid_role");
}

TEST_CASE("every mutating request is audited, failures included", "[integration][api][auth]") {
  ServiceFixture svc;
  REQUIRE(svc.sendJson("POST", "/api/v1/purchase-orders", kPurchaseOrder, "viewer").status == 403);
  REQUIRE(svc.sendJson("POST", "/api/v1/sites", {{"name", "ams1"}}, "asset").status == 201);
  REQUIRE(svc.send("POST", "/api/v1/sites", "{bad json", "asset").status == 400);
  REQUIRE(svc.get("/api/v1/sites", "viewer").status == 200);  // reads are not audited

  auto audit = svc.get("/api/v1/audit");
  REQUIRE(audit.status == 200);
  const auto items = audit.json()["items"];
  REQUIRE(items.size() == 3);
  // Newest first.
  CHECK(items[0]["outcome"] == "malformed_json");
  CHECK(items[0]["status"] == 400);
  CHECK(items[1]["outcome"] == "success");
  CHECK(items[1]["action"] == "sites.create");
  CHECK(items[1]["actor"] == "test-asset");
  CHECK(items[1]["role"] == "asset");
  CHECK(items[2]["outcome"] == "forbidden");
  CHECK(items[2]["status"] == 403);
  CHECK(items[2]["method"] == "POST");
  CHECK(items[2]["path"] == "/api/v1/purchase-orders");
  CHECK_FALSE(items[2]["request_id"].get<std::string>().empty());
}

// Service endpoints: health, readiness, metrics, OpenAPI, request ids, unknown routes.
#include <catch2/catch.hpp>

#include "support/service_fixture.hpp"

using testing::ServiceFixture;

TEST_CASE("readyz reports ready with migrations applied", "[integration][api][service]") {
  ServiceFixture svc;
  auto r = svc.anonymous("GET", "/readyz");
  CHECK(r.status == 200);
  CHECK(r.json()["status"] == "ready");
}

TEST_CASE("metrics count requests by route and status and show the pool",
          "[integration][api][service]") {
  ServiceFixture svc;
  REQUIRE(svc.get("/api/v1/nodes/999").status == 404);
  REQUIRE(svc.get("/api/v1/sites").status == 200);
  auto m = svc.anonymous("GET", "/metrics");
  REQUIRE(m.status == 200);
  CHECK(m.content_type.find("text/plain") == 0);
  CHECK(m.body.find("provisioner_http_requests_total{route=\"nodes.get\",method=\"GET\","
                    "status=\"404\"} 1") != std::string::npos);
  CHECK(m.body.find("provisioner_http_request_duration_seconds_bucket{route=\"sites.list\"") !=
        std::string::npos);
  CHECK(m.body.find("provisioner_db_pool_connections ") != std::string::npos);
}

TEST_CASE("the OpenAPI description is served", "[integration][api][service]") {
  ServiceFixture svc;
  auto r = svc.anonymous("GET", "/api/v1/openapi.yaml");
  REQUIRE(r.status == 200);
  CHECK(r.body.find("openapi: 3") != std::string::npos);
  CHECK(r.body.find("/api/v1/assets/{serial}") != std::string::npos);
}

TEST_CASE("unknown routes are 404 problems and request ids are echoed",
          "[integration][api][service]") {
  ServiceFixture svc;
  auto r = svc.get("/api/v1/no-such-thing", "admin", {{"X-Request-Id", "req-abc.123"}});
  CHECK(r.status == 404);
  CHECK(r.json()["code"] == "route_not_found");
  CHECK(r.json()["request_id"] == "req-abc.123");
  auto echoed = r.headers.find("X-Request-Id");
  REQUIRE(echoed != r.headers.end());
  CHECK(echoed->second == "req-abc.123");
}

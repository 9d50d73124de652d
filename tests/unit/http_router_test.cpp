#include <catch2/catch.hpp>

#include "http/router.hpp"

using namespace provisioner::http;

namespace {

RouteSpec route(Method method, std::string pattern, std::string name) {
  RouteSpec spec;
  spec.method = method;
  spec.pattern = std::move(pattern);
  spec.name = std::move(name);
  spec.handler = [](const Request&) -> common::Result<Response> { return Response{}; };
  return spec;
}

Router sampleRouter() {
  Router router;
  REQUIRE(router.add(route(Method::kGet, "/api/v1/purchase-orders/{po_number}", "po.get")).ok());
  REQUIRE(
      router.add(route(Method::kPatch, "/api/v1/purchase-orders/{po_number}", "po.patch")).ok());
  REQUIRE(router.add(route(Method::kPost, "/api/v1/purchase-orders/import", "po.import")).ok());
  REQUIRE(router.add(route(Method::kGet, "/api/v1/racks/{id}/nodes", "racks.nodes")).ok());
  REQUIRE(router.add(route(Method::kGet, "/healthz", "healthz")).ok());
  REQUIRE(router.add(route(Method::kGet, "/", "root")).ok());
  return router;
}

}  // namespace

TEST_CASE("Router extracts path parameters", "[unit][http]") {
  auto router = sampleRouter();
  auto lookup = router.find(Method::kGet, "/api/v1/racks/17/nodes");
  REQUIRE(lookup.match);
  CHECK(lookup.match->spec->name == "racks.nodes");
  CHECK(lookup.match->params == std::map<std::string, std::string>{{"id", "17"}});
  CHECK(router.find(Method::kGet, "/").match->spec->name == "root");
}

TEST_CASE("Router prefers literal segments over parameters", "[unit][http]") {
  auto router = sampleRouter();
  CHECK(router.find(Method::kPost, "/api/v1/purchase-orders/import").match->spec->name ==
        "po.import");
  auto get = router.find(Method::kGet, "/api/v1/purchase-orders/import");
  REQUIRE(get.match);
  CHECK(get.match->spec->name == "po.get");
  CHECK(get.match->params.at("po_number") == "import");
}

TEST_CASE("Router tells unknown paths from unknown methods", "[unit][http]") {
  auto router = sampleRouter();
  auto unknown = router.find(Method::kGet, "/api/v1/nothing");
  CHECK_FALSE(unknown.match);
  CHECK(unknown.allowed.empty());

  auto wrong_method = router.find(Method::kDelete, "/api/v1/purchase-orders/PO-1");
  CHECK_FALSE(wrong_method.match);
  CHECK(wrong_method.allowed == std::vector<Method>{Method::kGet, Method::kPatch});

  auto head = router.find(std::nullopt, "/healthz");
  CHECK_FALSE(head.match);
  CHECK(head.allowed == std::vector<Method>{Method::kGet});
}

TEST_CASE("Router does not match empty segments, trailing slashes or odd paths", "[unit][http]") {
  auto router = sampleRouter();
  CHECK_FALSE(router.find(Method::kGet, "/api/v1/racks//nodes").match);
  CHECK_FALSE(router.find(Method::kGet, "/healthz/").match);
  CHECK_FALSE(router.find(Method::kGet, "*").match);
  CHECK_FALSE(router.find(Method::kGet, "").match);
  CHECK_FALSE(router.find(Method::kGet, "/api/v1/racks/1/nodes/extra").match);
}

TEST_CASE("Router rejects malformed route specs", "[unit][http]") {
  Router router;
  REQUIRE(router.add(route(Method::kGet, "/a/{id}", "a.get")).ok());
  CHECK_FALSE(router.add(route(Method::kGet, "/a/{other}", "a.dup")).ok());  // same shape
  CHECK(router.add(route(Method::kPut, "/a/{id}", "a.put")).ok());           // other method
  CHECK_FALSE(router.add(route(Method::kGet, "a/b", "no.slash")).ok());
  CHECK_FALSE(router.add(route(Method::kGet, "/a/{}", "empty.param")).ok());
  CHECK_FALSE(router.add(route(Method::kGet, "/a/{x-y}", "bad.param")).ok());
  CHECK_FALSE(router.add(route(Method::kGet, "/a/{x}/{x}", "repeated")).ok());
  CHECK_FALSE(router.add(route(Method::kGet, "/a//b", "empty.segment")).ok());
  CHECK_FALSE(router.add(route(Method::kGet, "/a/x{y}", "stray.brace")).ok());
  CHECK_FALSE(router.add(route(Method::kGet, "/b", "")).ok());
  auto no_handler = route(Method::kGet, "/c", "c");
  no_handler.handler = nullptr;
  CHECK_FALSE(router.add(no_handler).ok());
}

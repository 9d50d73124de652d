// The request pipeline without sockets; tests/integration/http_server_test.cpp drives it over HTTP.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <stdexcept>

#include "http/dispatcher.hpp"
#include "support/http_fakes.hpp"

using namespace provisioner::http;

namespace {

struct Fixture {
  std::shared_ptr<testing::FakeAuthenticator> auth = std::make_shared<testing::FakeAuthenticator>();
  std::shared_ptr<testing::RecordingAuditSink> audit =
      std::make_shared<testing::RecordingAuditSink>();
  std::shared_ptr<MetricsRegistry> metrics = std::make_shared<MetricsRegistry>();
  Dispatcher dispatcher{auth, audit, metrics};

  Fixture() {
    auth->add("viewer-token", Principal{1, "vera", Role::kViewer});
    auth->add("proc-token", Principal{2, "paul", Role::kProcurement});
    add(Method::kGet, "/api/v1/nodes/{id}", "nodes.get", Permission::kReadInventory,
        [](const Request& r) -> common::Result<Response> {
          return jsonResponse(200, {{"id", r.pathParam("id")}, {"actor", r.principal->name}});
        });
    add(Method::kPost, "/api/v1/purchase-orders", "po.create", Permission::kWritePurchaseOrders,
        [](const Request& r) -> common::Result<Response> {
          if (r.body == "dup") return common::conflict("duplicate_po", "PO exists", "po_number");
          if (r.body == "throw") throw std::runtime_error("secret internals");
          return jsonResponse(201, {{"ok", true}});
        });
    add(Method::kGet, "/healthz", "healthz", Permission::kPublic,
        [](const Request&) -> common::Result<Response> { return jsonResponse(200, {}); });
  }

  void add(Method method, std::string pattern, std::string name, Permission permission,
           Handler handler) {
    REQUIRE(dispatcher
                .addRoute(RouteSpec{method,
                                    std::move(pattern),
                                    std::move(name),
                                    permission,
                                    std::move(handler),
                                    {"application/json"}})
                .ok());
  }

  static IncomingRequest request(std::string method, std::string path, std::string token = {}) {
    IncomingRequest in;
    in.method = std::move(method);
    in.path = std::move(path);
    if (!token.empty()) in.headers.emplace_back("Authorization", "Bearer " + token);
    return in;
  }

  static IncomingRequest post(std::string body, std::string token = "proc-token") {
    auto in = request("POST", "/api/v1/purchase-orders", std::move(token));
    in.headers.emplace_back("Content-Type", "application/json; charset=utf-8");
    in.body = std::move(body);
    return in;
  }
};

std::string headerOf(const Response& response, std::string_view name) {
  for (const auto& [key, value] : response.headers) {
    if (key == name) return value;
  }
  return {};
}

std::string codeOf(const Response& response) {
  return nlohmann::json::parse(response.body).value("code", "");
}

}  // namespace

TEST_CASE("Dispatcher serves a route with its parameters and principal", "[unit][http]") {
  Fixture f;
  auto response = f.dispatcher.dispatch(Fixture::request("GET", "/api/v1/nodes/7", "viewer-token"));
  CHECK(response.status == 200);
  auto body = nlohmann::json::parse(response.body);
  CHECK(body["id"] == "7");
  CHECK(body["actor"] == "vera");
  CHECK(headerOf(response, "X-Request-Id").size() == 32);
  CHECK(f.audit->records().empty());  // GET is not audited
}

TEST_CASE("Dispatcher answers 404 and 405 problems", "[unit][http]") {
  Fixture f;
  auto missing = f.dispatcher.dispatch(Fixture::request("GET", "/api/v1/nope"));
  CHECK(missing.status == 404);
  CHECK(codeOf(missing) == "route_not_found");
  auto wrong = f.dispatcher.dispatch(Fixture::request("DELETE", "/api/v1/nodes/7"));
  CHECK(wrong.status == 405);
  CHECK(codeOf(wrong) == "method_not_allowed");
  CHECK(headerOf(wrong, "Allow") == "GET");
  auto head = f.dispatcher.dispatch(Fixture::request("HEAD", "/healthz"));
  CHECK(head.status == 405);
}

TEST_CASE("Dispatcher authenticates and authorises", "[unit][http]") {
  Fixture f;
  auto none = f.dispatcher.dispatch(Fixture::request("GET", "/api/v1/nodes/7"));
  CHECK(none.status == 401);
  CHECK(codeOf(none) == "unauthenticated");
  CHECK(headerOf(none, "WWW-Authenticate").starts_with("Bearer"));
  auto basic = Fixture::request("GET", "/api/v1/nodes/7");
  basic.headers.emplace_back("authorization", "Basic dXNlcjpwYXNz");
  CHECK(f.dispatcher.dispatch(basic).status == 401);
  auto lower = Fixture::request("GET", "/api/v1/nodes/7");
  lower.headers.emplace_back("authorization", "bearer viewer-token");
  CHECK(f.dispatcher.dispatch(lower).status == 200);
  CHECK(codeOf(f.dispatcher.dispatch(Fixture::request("GET", "/api/v1/nodes/7", "wrong"))) ==
        "unauthenticated");
  CHECK(codeOf(f.dispatcher.dispatch(Fixture::request("GET", "/api/v1/nodes/7", "revoked"))) ==
        "token_revoked");
  auto down = f.dispatcher.dispatch(Fixture::request("GET", "/api/v1/nodes/7", "db-down"));
  CHECK(down.status == 503);
  auto forbidden = f.dispatcher.dispatch(Fixture::post("{}", "viewer-token"));
  CHECK(forbidden.status == 403);
  CHECK(codeOf(forbidden) == "forbidden");
  CHECK(f.dispatcher.dispatch(Fixture::request("GET", "/healthz")).status == 200);
}

TEST_CASE("Dispatcher checks body size and media type after authentication", "[unit][http]") {
  Fixture f;
  auto big = Fixture::post("");
  big.body_too_large = true;
  auto too_large = f.dispatcher.dispatch(big);
  CHECK(too_large.status == 413);
  CHECK(codeOf(too_large) == "payload_too_large");
  big.headers.clear();  // no token: the 401 wins
  CHECK(f.dispatcher.dispatch(big).status == 401);

  auto csv = Fixture::request("POST", "/api/v1/purchase-orders", "proc-token");
  csv.headers.emplace_back("Content-Type", "text/csv");
  csv.body = "a,b";
  auto unsupported = f.dispatcher.dispatch(csv);
  CHECK(unsupported.status == 415);
  CHECK(codeOf(unsupported) == "unsupported_media_type");

  auto untyped = Fixture::request("POST", "/api/v1/purchase-orders", "proc-token");
  untyped.body = "{}";
  CHECK(f.dispatcher.dispatch(untyped).status == 415);
  untyped.body.clear();  // no body needs no Content-Type
  CHECK(f.dispatcher.dispatch(untyped).status == 201);
}

TEST_CASE("Dispatcher turns handler errors and exceptions into problems", "[unit][http]") {
  Fixture f;
  auto conflict = f.dispatcher.dispatch(Fixture::post("dup"));
  CHECK(conflict.status == 409);
  CHECK(nlohmann::json::parse(conflict.body)["field"] == "po_number");
  auto thrown = f.dispatcher.dispatch(Fixture::post("throw"));
  CHECK(thrown.status == 500);
  CHECK(codeOf(thrown) == "internal");
  CHECK(thrown.body.find("secret internals") == std::string::npos);
}

TEST_CASE("Dispatcher audits every mutating request with its outcome", "[unit][http]") {
  Fixture f;
  (void)f.dispatcher.dispatch(Fixture::post("{}"));
  (void)f.dispatcher.dispatch(Fixture::post("dup"));
  (void)f.dispatcher.dispatch(Fixture::post("{}", "viewer-token"));
  (void)f.dispatcher.dispatch(Fixture::post("{}", ""));
  (void)f.dispatcher.dispatch(Fixture::request("DELETE", "/api/v1/nowhere"));
  (void)f.dispatcher.dispatch(Fixture::request("PUT", "/api/v1/nodes/3"));
  const auto records = f.audit->records();
  REQUIRE(records.size() == 6);
  CHECK(records[0].status == 201);
  CHECK(records[0].outcome == "success");
  CHECK(records[0].action == "po.create");
  CHECK(records[0].principal->name == "paul");
  CHECK(records[1].outcome == "duplicate_po");
  CHECK(records[2].outcome == "forbidden");
  CHECK(records[2].principal->name == "vera");
  CHECK(records[3].outcome == "unauthenticated");
  CHECK_FALSE(records[3].principal.has_value());
  CHECK(records[4].status == 404);
  CHECK(records[4].action == "unmatched");
  CHECK(records[4].method == Method::kDelete);
  CHECK(records[5].status == 405);
  CHECK(records[5].outcome == "method_not_allowed");
}

TEST_CASE("Dispatcher maps transport failures to problems", "[unit][http]") {
  Fixture f;
  auto in = Fixture::request("GET", "/api/v1/nodes/1");
  in.transport_status = 414;
  auto response = f.dispatcher.dispatch(in);
  CHECK(response.status == 414);
  CHECK(codeOf(response) == "uri_too_long");
  in.transport_status = 400;
  CHECK(codeOf(f.dispatcher.dispatch(in)) == "bad_request");
}

TEST_CASE("Dispatcher counts requests by route name", "[unit][http]") {
  Fixture f;
  (void)f.dispatcher.dispatch(Fixture::request("GET", "/api/v1/nodes/7", "viewer-token"));
  (void)f.dispatcher.dispatch(Fixture::request("GET", "/nope"));
  const auto text = f.metrics->render();
  CHECK(text.find("{route=\"nodes.get\",method=\"GET\",status=\"200\"} 1") != std::string::npos);
  CHECK(text.find("{route=\"unmatched\",method=\"GET\",status=\"404\"} 1") != std::string::npos);
}

TEST_CASE("request ids are taken from the client only when well-formed", "[unit][http]") {
  CHECK(requestIdFrom("abc-123_x.Y") == "abc-123_x.Y");
  CHECK(requestIdFrom(std::string(64, 'a')) == std::string(64, 'a'));
  for (std::string bad : {std::string(), std::string(65, 'a'), std::string("a b"),
                          std::string("a\nb"), std::string("<script>")}) {
    const auto id = requestIdFrom(bad);
    CHECK(id != bad);
    CHECK(id.size() == 32);
  }
  CHECK(requestIdFrom("") != requestIdFrom(""));
}

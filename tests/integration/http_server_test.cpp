// A real ApiServer on an ephemeral port, driven over sockets by cpp-httplib's client.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <httplib.h>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <atomic>
#include <chrono>
#include <future>
#include <latch>
#include <thread>

#include "provisioner/http/server.hpp"
#include "support/http_fakes.hpp"

using namespace provisioner::http;

namespace {

constexpr std::size_t kMaxBody = 1024;

common::Result<Response> echoNode(const Request& request) {
  return jsonResponse(200, {{"id", request.pathParam("id")},
                            {"actor", request.principal->name},
                            {"state", request.query("state").value_or("")}});
}

common::Result<Response> createPo(const Request& request) {
  if (request.body == "{\"dup\":true}") {
    return common::conflict("duplicate_po", "PO-1 exists", "po_number");
  }
  return jsonResponse(201, {{"bytes", request.body.size()}});
}

// Owns the server, its fakes and the thread running it; stops and joins on destruction.
class TestServer {
 public:
  explicit TestServer(std::vector<RouteSpec> extra = {}) {
    auth_->add("viewer-token", Principal{1, "vera", Role::kViewer});
    auth_->add("proc-token", Principal{2, "paul", Role::kProcurement});
    ServerOptions options;
    options.port = 0;
    options.max_body_bytes = kMaxBody;
    options.threads = 4;
    server_ = std::make_unique<ApiServer>(options, auth_, audit_, metrics_);
    server_->addRoute(
        {Method::kGet, "/api/v1/nodes/{id}", "nodes.get", Permission::kReadInventory, echoNode});
    server_->addRoute({Method::kPost, "/api/v1/purchase-orders", "purchase_orders.create",
                       Permission::kWritePurchaseOrders, createPo});
    server_->addRoute(
        {Method::kPost, "/api/v1/boom", "boom", Permission::kPublic,
         [](const Request&) -> common::Result<Response> { throw std::runtime_error("kaboom"); }});
    server_->addRoute(metricsRoute(metrics_));
    for (auto& spec : extra) server_->addRoute(std::move(spec));
    auto port = server_->bind();
    REQUIRE(port.ok());
    port_ = *port;
    runner_ = std::thread([this] {
      server_->run();
      run_returned_.store(true);
    });
  }
  ~TestServer() {
    stop();
    join();
  }

  void stop() { server_->stop(); }
  void join() {
    if (runner_.joinable()) runner_.join();
  }
  bool runReturned() const { return run_returned_.load(); }
  httplib::Client client() const {
    httplib::Client client("127.0.0.1", port_);
    client.set_connection_timeout(5);
    client.set_read_timeout(10);
    return client;
  }
  int port() const { return port_; }
  testing::RecordingAuditSink& audit() { return *audit_; }

 private:
  std::shared_ptr<testing::FakeAuthenticator> auth_ =
      std::make_shared<testing::FakeAuthenticator>();
  std::shared_ptr<testing::RecordingAuditSink> audit_ =
      std::make_shared<testing::RecordingAuditSink>();
  std::shared_ptr<MetricsRegistry> metrics_ = std::make_shared<MetricsRegistry>();
  std::unique_ptr<ApiServer> server_;
  std::thread runner_;
  std::atomic<bool> run_returned_{false};
  int port_ = 0;
};

httplib::Headers bearer(const std::string& token) {
  return {{"Authorization", "Bearer " + token}};
}

nlohmann::json bodyOf(const httplib::Result& result) {
  REQUIRE(result);
  return nlohmann::json::parse(result->body);
}

void requireProblem(const httplib::Result& result, int status, const std::string& code) {
  REQUIRE(result);
  CHECK(result->status == status);
  CHECK(result->get_header_value("Content-Type") == "application/problem+json");
  auto body = nlohmann::json::parse(result->body);
  CHECK(body["status"] == status);
  CHECK(body["code"] == code);
  CHECK(body["request_id"] == result->get_header_value("X-Request-Id"));
}

// Sends raw bytes and returns the first response: headers and a Content-Length body.
std::string rawExchange(int port, const std::string& bytes) {
  const int sock = ::socket(AF_INET, SOCK_STREAM, 0);
  REQUIRE(sock >= 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::connect(sock, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0);
  REQUIRE(::send(sock, bytes.data(), bytes.size(), 0) == static_cast<ssize_t>(bytes.size()));
  std::string answer;
  std::size_t expected = std::string::npos;
  char buffer[4096];
  while (answer.size() < expected) {
    const ssize_t n = ::recv(sock, buffer, sizeof(buffer), 0);
    if (n <= 0) break;
    answer.append(buffer, static_cast<std::size_t>(n));
    const auto end_of_headers = answer.find("\r\n\r\n");
    const auto length = answer.find("Content-Length: ");
    if (end_of_headers != std::string::npos && length != std::string::npos) {
      expected = end_of_headers + 4 + std::stoul(answer.substr(length + 16));
    }
  }
  ::close(sock);
  return answer;
}

}  // namespace

TEST_CASE("server routes with path parameters and query strings", "[integration][http]") {
  TestServer server;
  auto client = server.client();
  auto result = client.Get("/api/v1/nodes/42?state=ready", bearer("viewer-token"));
  REQUIRE(result);
  CHECK(result->status == 200);
  CHECK(result->get_header_value("Content-Type") == "application/json");
  auto body = bodyOf(result);
  CHECK(body["id"] == "42");
  CHECK(body["actor"] == "vera");
  CHECK(body["state"] == "ready");
}

TEST_CASE("a control character in a query or path parameter is refused naming it",
          "[integration][http]") {
  TestServer server;
  auto client = server.client();
  // Percent-decoded, these would reach the handler as "ready\0x" (a filter cut at the NUL by
  // the database answers for "ready"), "4\n2", ...
  for (const auto& [path, field] : std::vector<std::pair<std::string, std::string>>{
           {"/api/v1/nodes/42?state=ready%00x", "state"},
           {"/api/v1/nodes/42?state=a%0Db", "state"},
           {"/api/v1/nodes/4%0A2", "id"},
           {"/api/v1/nodes/4%002?state=ready", "id"},
           {"/api/v1/nodes/42?st%00ate=ready", "query"}}) {
    INFO(path);
    auto refused = client.Get(path, bearer("viewer-token"));
    requireProblem(refused, 400, "invalid_field");
    CHECK(bodyOf(refused)["field"] == field);
  }
  // Tabs and the like are as refused as NUL; ordinary text passes.
  auto fine = client.Get("/api/v1/nodes/42?state=r%C3%A9ady%20now", bearer("viewer-token"));
  REQUIRE(fine);
  CHECK(fine->status == 200);
  CHECK(bodyOf(fine)["state"] == "r\u00e9ady now");
}

TEST_CASE("server answers unknown routes 404 and wrong methods 405", "[integration][http]") {
  TestServer server;
  auto client = server.client();
  requireProblem(client.Get("/api/v1/nothing"), 404, "route_not_found");
  auto wrong = client.Delete("/api/v1/nodes/42", bearer("viewer-token"));
  requireProblem(wrong, 405, "method_not_allowed");
  CHECK(wrong->get_header_value("Allow") == "GET");
  // A path near cpp-httplib's request-line limit is still just an unknown route.
  requireProblem(client.Get("/" + std::string(8000, 'a')), 404, "route_not_found");
}

TEST_CASE("server requires a token and the right role", "[integration][http]") {
  TestServer server;
  auto client = server.client();
  auto anonymous = client.Get("/api/v1/nodes/1");
  requireProblem(anonymous, 401, "unauthenticated");
  CHECK(anonymous->get_header_value("WWW-Authenticate") == "Bearer realm=\"provisioner\"");
  requireProblem(client.Get("/api/v1/nodes/1", bearer("nope")), 401, "unauthenticated");
  requireProblem(client.Get("/api/v1/nodes/1", bearer("revoked")), 401, "token_revoked");
  requireProblem(
      client.Post("/api/v1/purchase-orders", bearer("viewer-token"), "{}", "application/json"), 403,
      "forbidden");
  auto created =
      client.Post("/api/v1/purchase-orders", bearer("proc-token"), "{}", "application/json");
  REQUIRE(created);
  CHECK(created->status == 201);
}

TEST_CASE("server refuses oversized bodies with a problem", "[integration][http]") {
  TestServer server;
  auto client = server.client();
  const std::string exactly(kMaxBody, 'x');
  auto fits =
      client.Post("/api/v1/purchase-orders", bearer("proc-token"), exactly, "application/json");
  REQUIRE(fits);
  CHECK(fits->status == 201);
  CHECK(bodyOf(fits)["bytes"] == kMaxBody);

  requireProblem(client.Post("/api/v1/purchase-orders", bearer("proc-token"), exactly + "x",
                             "application/json"),
                 413, "payload_too_large");

  // Chunked bodies have no Content-Length for the library to check: the server counts them.
  auto chunked = client.Post(
      "/api/v1/purchase-orders", bearer("proc-token"),
      [&](std::size_t offset, httplib::DataSink& sink) {
        if (offset < 4 * kMaxBody) {
          sink.write(exactly.data(), 512);
        } else {
          sink.done();
        }
        return true;
      },
      "application/json");
  requireProblem(chunked, 413, "payload_too_large");
  // The connection stays in step: the next request on it is answered normally.
  auto after = client.Get("/api/v1/nodes/5", bearer("viewer-token"));
  REQUIRE(after);
  CHECK(after->status == 200);
}

TEST_CASE("a Range header slices file downloads only, never a JSON answer or a problem",
          "[integration][http]") {
  TestServer server;
  auto client = server.client();
  for (const char* range : {"bytes=0-10", "bytes=0-3,5-9", "bytes=abc"}) {
    INFO(range);
    auto whole =
        client.Get("/api/v1/nodes/7", {{"Authorization", "Bearer viewer-token"}, {"Range", range}});
    REQUIRE(whole);
    CHECK(whole->status == 200);
    CHECK_FALSE(whole->has_header("Content-Range"));
    CHECK(bodyOf(whole)["id"] == "7");
    // A problem keeps its status and its whole body.
    requireProblem(
        client.Get("/api/v1/nowhere", {{"Authorization", "Bearer viewer-token"}, {"Range", range}}),
        404, "route_not_found");
  }
}

TEST_CASE("a POST without Content-Length or Transfer-Encoding has no body and is answered at once",
          "[integration][http]") {
  TestServer server;
  const auto started = std::chrono::steady_clock::now();
  const std::string answer = rawExchange(server.port(),
                                         "POST /api/v1/purchase-orders HTTP/1.1\r\n"
                                         "Host: 127.0.0.1\r\n"
                                         "Authorization: Bearer proc-token\r\n\r\n");
  const auto took = std::chrono::steady_clock::now() - started;
  INFO(answer);
  CHECK(answer.rfind("HTTP/1.1 201", 0) == 0);
  CHECK(answer.find("{\"bytes\":0}") != std::string::npos);
  CHECK(took < std::chrono::seconds(2));  // the read timeout (10 s) was the old answer
}

TEST_CASE("server checks the Content-Type of bodies", "[integration][http]") {
  TestServer server;
  auto client = server.client();
  requireProblem(client.Post("/api/v1/purchase-orders", bearer("proc-token"), "a,b", "text/csv"),
                 415, "unsupported_media_type");
  auto with_charset = client.Post("/api/v1/purchase-orders", bearer("proc-token"), "{}",
                                  "Application/JSON; charset=utf-8");
  REQUIRE(with_charset);
  CHECK(with_charset->status == 201);
}

TEST_CASE("server echoes a valid X-Request-Id and makes one up otherwise", "[integration][http]") {
  TestServer server;
  auto client = server.client();
  auto mine = client.Get("/api/v1/nothing", {{"X-Request-Id", "trace-42.a_b"}});
  REQUIRE(mine);
  CHECK(mine->get_header_value("X-Request-Id") == "trace-42.a_b");
  CHECK(bodyOf(mine)["request_id"] == "trace-42.a_b");
  auto bad = client.Get("/api/v1/nothing", {{"X-Request-Id", "has spaces <and> more"}});
  REQUIRE(bad);
  const auto generated = bad->get_header_value("X-Request-Id");
  CHECK(generated.size() == 32);
  CHECK(generated.find_first_not_of("0123456789abcdef") == std::string::npos);
}

TEST_CASE("server audits every mutating request, failed ones included", "[integration][http]") {
  TestServer server;
  auto client = server.client();
  auto forbidden =
      client.Post("/api/v1/purchase-orders", bearer("viewer-token"), "{}", "application/json");
  REQUIRE(forbidden);
  auto duplicate = client.Post("/api/v1/purchase-orders", bearer("proc-token"), "{\"dup\":true}",
                               "application/json");
  REQUIRE(duplicate);
  auto too_big = client.Post("/api/v1/purchase-orders", bearer("proc-token"),
                             std::string(kMaxBody + 1, 'x'), "application/json");
  REQUIRE(too_big);
  auto unknown = client.Delete("/api/v1/nothing");
  REQUIRE(unknown);
  auto get = client.Get("/api/v1/nodes/1", bearer("viewer-token"));
  REQUIRE(get);

  const auto records = server.audit().records();  // answered before the client saw them
  REQUIRE(records.size() == 4);
  CHECK(records[0].status == 403);
  CHECK(records[0].outcome == "forbidden");
  CHECK(records[0].action == "purchase_orders.create");
  CHECK(records[0].method == Method::kPost);
  CHECK(records[0].path == "/api/v1/purchase-orders");
  REQUIRE(records[0].principal);
  CHECK(records[0].principal->name == "vera");
  CHECK(records[0].request_id == forbidden->get_header_value("X-Request-Id"));
  CHECK(records[1].status == 409);
  CHECK(records[1].outcome == "duplicate_po");
  CHECK(records[2].status == 413);
  CHECK(records[2].outcome == "payload_too_large");
  CHECK(records[2].principal->name == "paul");
  CHECK(records[3].status == 404);
  CHECK(records[3].outcome == "route_not_found");
  CHECK(records[3].action == "unmatched");
  CHECK_FALSE(records[3].principal.has_value());
}

TEST_CASE("server turns handler exceptions into 500 problems", "[integration][http]") {
  TestServer server;
  auto client = server.client();
  auto result = client.Post("/api/v1/boom", "{}", "application/json");
  requireProblem(result, 500, "internal");
  CHECK(result->body.find("kaboom") == std::string::npos);
}

TEST_CASE("server answers unparsable requests with a problem", "[integration][http]") {
  TestServer server;
  const auto answer = rawExchange(server.port(), "NONSENSE / HTTP/1.1\r\nHost: x\r\n\r\n");
  CHECK(answer.starts_with("HTTP/1.1 400"));
  CHECK(answer.find("\"code\":\"bad_request\"") != std::string::npos);
  CHECK(answer.find("X-Request-Id: ") != std::string::npos);
}

TEST_CASE("server exposes metrics by route name", "[integration][http]") {
  TestServer server;
  auto client = server.client();
  REQUIRE(client.Get("/api/v1/nodes/1", bearer("viewer-token")));
  REQUIRE(client.Get("/api/v1/nodes/2", bearer("viewer-token")));
  REQUIRE(client.Get("/api/v1/missing"));
  auto metrics = client.Get("/metrics");
  REQUIRE(metrics);
  CHECK(metrics->status == 200);
  CHECK(metrics->get_header_value("Content-Type").starts_with("text/plain; version=0.0.4"));
  CHECK(metrics->body.find("provisioner_http_requests_total{route=\"nodes.get\",method=\"GET\","
                           "status=\"200\"} 2\n") != std::string::npos);
  CHECK(metrics->body.find("provisioner_http_requests_total{route=\"unmatched\",method=\"GET\","
                           "status=\"404\"} 1\n") != std::string::npos);
  CHECK(metrics->body.find("provisioner_http_request_duration_seconds_count{route=\"nodes.get\"} "
                           "2\n") != std::string::npos);
}

TEST_CASE("stop() lets an in-flight request finish and refuses new ones", "[integration][http]") {
  std::latch entered(1);
  std::latch release(1);
  RouteSpec slow{Method::kGet, "/slow", "slow", Permission::kPublic,
                 [&](const Request&) -> common::Result<Response> {
                   entered.count_down();
                   release.wait();
                   return jsonResponse(200, {{"done", true}});
                 }};
  TestServer server({slow});
  auto in_flight = std::async(std::launch::async, [&server] {
    auto client = server.client();
    auto result = client.Get("/slow");
    return result ? std::make_pair(result->status, result->body)
                  : std::make_pair(-1, std::string(httplib::to_string(result.error())));
  });
  entered.wait();

  std::thread([&server] { server.stop(); }).join();  // from another thread, as a signal watcher
  auto refused = server.client().Get("/metrics");
  CHECK_FALSE(refused);
  CHECK(refused.error() == httplib::Error::Connection);
  CHECK_FALSE(server.runReturned());  // run() cannot return while the handler is held

  release.count_down();
  const auto [status, body] = in_flight.get();
  CHECK(status == 200);
  CHECK(body == "{\"done\":true}");
  server.join();
  CHECK(server.runReturned());
}

TEST_CASE("stop() before run() makes run() return at once", "[integration][http]") {
  auto metrics = std::make_shared<MetricsRegistry>();
  ServerOptions options;
  options.port = 0;
  ApiServer server(options, std::make_shared<testing::FakeAuthenticator>(),
                   std::make_shared<testing::RecordingAuditSink>(), metrics);
  REQUIRE(server.bind().ok());
  server.stop();
  server.run();
  SUCCEED("run() returned");
}

TEST_CASE("bind() reports an address already in use", "[integration][http]") {
  TestServer first;
  ServerOptions options;
  options.port = first.port();
  ApiServer second(options, std::make_shared<testing::FakeAuthenticator>(),
                   std::make_shared<testing::RecordingAuditSink>(),
                   std::make_shared<MetricsRegistry>());
  auto bound = second.bind();
  REQUIRE_FALSE(bound.ok());
  CHECK(bound.error().code == "address_in_use");
  CHECK(bound.error().message.find(std::to_string(first.port())) != std::string::npos);
}

// The API server: routes with permissions, bearer-token auth, problem+json errors, audit of every
// mutating request, metrics and one JSON access-log line per request. cpp-httplib stays inside.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"
#include "provisioner/http/metrics.hpp"
#include "provisioner/http/rbac.hpp"
#include "provisioner/http/request.hpp"

namespace provisioner::http {

struct RouteSpec {
  Method method = Method::kGet;
  std::string pattern;  // "/api/v1/nodes/{id}": literal segments and whole-segment parameters
  std::string name;     // "nodes.get": the metrics label, audit action and log field
  Permission permission = Permission::kManageTokens;  // deny by default: admin-only
  Handler handler;
  // Media types a body may have (parameters such as charset ignored); empty accepts any.
  std::vector<std::string> accepts = {"application/json"};
  // The handler reads the body itself through Request::read_body, up to
  // ServerOptions::max_stream_bytes, after authentication passed (large artifact uploads).
  bool streams_body = false;
};

// Turns a bearer token into a principal. Errors pass through to the client: unauthenticated
// (401, e.g. code "token_revoked"), or unavailable (503) when the token store cannot be reached.
class Authenticator {
 public:
  virtual ~Authenticator() = default;
  virtual common::Result<Principal> authenticate(std::string_view bearer_token) = 0;
};

struct AuditRecord {
  std::optional<Principal> principal;  // absent when the caller was not authenticated
  Method method = Method::kPost;
  std::string path;
  std::string action;  // the route name, or "unmatched"
  std::string request_id;
  int status = 0;
  std::string outcome;  // "success" or the problem code
};

// Receives every POST, PUT, PATCH and DELETE after it was answered, whatever the outcome.
// Called on the request's worker thread; must be thread-safe and should not throw (a throw is
// logged and swallowed: the response has been decided already).
class AuditSink {
 public:
  virtual ~AuditSink() = default;
  virtual void record(const AuditRecord& record) = 0;
};

struct ServerOptions {
  std::string host = "127.0.0.1";
  int port = 8080;  // 0: an ephemeral port, see ApiServer::bind()
  std::size_t max_body_bytes = 8 << 20;
  // The limit for routes that stream their body (RouteSpec::streams_body).
  std::uint64_t max_stream_bytes = 64ULL << 30;
  std::size_t threads = 8;
  // An idle keep-alive connection holds a worker this long, also after stop().
  int keep_alive_timeout_s = 5;
  // Requests served on one keep-alive connection before it is closed (spreads load on replicas).
  std::size_t keep_alive_max_requests = 100;
  int read_timeout_s = 10;
  int write_timeout_s = 10;
};

// Typical use: addRoute() for every route, bind(), run() on a thread of its own, stop() from a
// signal watcher, then join that thread; only then destroy the server.
class ApiServer {
 public:
  ApiServer(ServerOptions options, std::shared_ptr<Authenticator> authenticator,
            std::shared_ptr<AuditSink> audit, std::shared_ptr<MetricsRegistry> metrics);
  ~ApiServer();
  ApiServer(const ApiServer&) = delete;
  ApiServer& operator=(const ApiServer&) = delete;

  // Before run(). A malformed spec (pattern not starting with '/', bad `{param}`, no handler,
  // empty name, same method and pattern twice) is a programming error: logged, then abort().
  void addRoute(RouteSpec spec);

  // Opens the listening socket; returns the bound port (the ephemeral one when port is 0).
  // Errors: "address_in_use", or "bind_failed" (unavailable) naming host and port.
  common::Result<int> bind();
  // Serves until stop(); binds first if bind() was not called. Returns once the listener is
  // closed and every accepted request has been answered.
  void run();
  // Stops accepting and lets in-flight requests finish; returns at once. Safe from any thread,
  // before, during or after run().
  void stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// GET /metrics (public): the registry rendered as Prometheus text.
RouteSpec metricsRoute(std::shared_ptr<MetricsRegistry> metrics);

}  // namespace provisioner::http

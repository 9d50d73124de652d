// The request pipeline without the transport: route, authenticate, authorise, check the body,
// call the handler, then audit, count and log. The server adapts cpp-httplib to it.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "provisioner/http/server.hpp"
#include "router.hpp"

namespace provisioner::http {

inline constexpr std::string_view kRequestIdHeader = "X-Request-Id";

// What the transport read, before any interpretation.
struct IncomingRequest {
  std::string method;  // as received: "GET", "HEAD", ...
  std::string path;
  std::vector<std::pair<std::string, std::string>> headers;
  std::multimap<std::string, std::string> query;
  std::string body;
  bool body_too_large = false;    // the body was over the limit (and was not kept)
  bool body_unsupported = false;  // a body we cannot take at all (multipart)
  // A status the transport has already decided (400 unparsable, 414, 500); 0 when none.
  int transport_status = 0;
  // For a route that streams its body: pulls the body from the transport (body stays empty).
  BodyReader stream;
  // The byte ranges of a Range header, as the transport parsed them: (first, last), -1 for an
  // open end (first -1: the last `last` bytes). Only a file answer is sliced.
  std::vector<std::pair<std::int64_t, std::int64_t>> ranges;
};

class Dispatcher {
 public:
  Dispatcher(std::shared_ptr<Authenticator> authenticator, std::shared_ptr<AuditSink> audit,
             std::shared_ptr<MetricsRegistry> metrics);

  common::Result<void> addRoute(RouteSpec spec) { return router_.add(std::move(spec)); }

  // True when the route for this method and path reads its body itself.
  bool streamsBody(const std::string& method, std::string_view path) const;

  // Answers the request; never throws. The response carries X-Request-Id.
  Response dispatch(IncomingRequest incoming) const;

 private:
  struct Exchange;

  common::Result<Response> process(IncomingRequest& incoming, Exchange& exchange) const;
  common::Result<Principal> identify(const IncomingRequest& incoming) const;
  common::Result<void> authenticate(const IncomingRequest& incoming, const RouteSpec& route,
                                    Exchange& exchange) const;
  common::Result<Response> invoke(const RouteSpec& route, const Request& request) const;
  void finish(const Exchange& exchange, const Response& response,
              std::chrono::steady_clock::duration elapsed) const;
  void audit(const Exchange& exchange, const Response& response) const;

  std::shared_ptr<Authenticator> authenticator_;
  std::shared_ptr<AuditSink> audit_;
  std::shared_ptr<MetricsRegistry> metrics_;
  Router router_;
};

// The X-Request-Id value when it is 1..64 characters of [A-Za-z0-9._-], else a fresh random id.
std::string requestIdFrom(std::string_view header_value);

}  // namespace provisioner::http

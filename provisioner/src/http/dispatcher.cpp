#include "dispatcher.hpp"

#include <cmath>
#include <exception>
#include <random>

#include <spdlog/common.h>
#include <nlohmann/json.hpp>

#include "provisioner/http/logging.hpp"
#include "provisioner/http/problem.hpp"
#include "text.hpp"

namespace provisioner::http {
namespace {

bool hasControlCharacter(std::string_view text) {
  for (unsigned char c : text) {
    if (c < 0x20 || c == 0x7f) return true;
  }
  return false;
}

// Every range of a Range request starts inside a file of `size` bytes (a suffix range asks for at
// least one byte). Stricter than RFC 9110 14.1.1, which serves the satisfiable ranges of a set:
// no client of ours asks for several.
bool rangesSatisfiable(const std::vector<std::pair<std::int64_t, std::int64_t>>& ranges,
                       std::uint64_t size) {
  for (const auto& [first, last] : ranges) {
    if (first < 0 ? last <= 0 || size == 0 : static_cast<std::uint64_t>(first) >= size) {
      return false;
    }
    if (first >= 0 && last >= 0 && last < first) return false;
  }
  return true;
}

// A control character (a NUL above all) in a query or path parameter: no stored value holds one,
// and a filter cut at the NUL would answer for another value. Refused, naming the parameter.
common::Result<void> refuseControlCharacters(const std::multimap<std::string, std::string>& query,
                                             const std::map<std::string, std::string>& path) {
  for (const auto& [name, value] : path) {
    if (hasControlCharacter(value)) {
      return common::invalidArgument(
          "invalid_field", "the path segment " + name + " holds a control character", name);
    }
  }
  for (const auto& [name, value] : query) {
    if (hasControlCharacter(name) || hasControlCharacter(value)) {
      return common::invalidArgument(
          "invalid_field", "the query parameter holds a control character (NUL, CR, LF, ...)",
          hasControlCharacter(name) ? std::string("query") : name);
    }
  }
  return common::success();
}

constexpr std::size_t kMaxRequestIdLength = 64;

std::string headerOf(const std::vector<std::pair<std::string, std::string>>& headers,
                     std::string_view name) {
  for (const auto& [key, value] : headers) {
    if (text::equalsIgnoreCase(key, name)) return value;
  }
  return {};
}

bool validRequestId(std::string_view id) {
  if (id.empty() || id.size() > kMaxRequestIdLength) return false;
  for (char c : id) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

// "Bearer <token>" (scheme case-insensitive) -> the token; "" when absent or another scheme.

// Paths are client input of up to ~8 KiB: keep messages and log lines short.
std::string clipped(const std::string& text) {
  constexpr std::size_t kMax = 256;
  return text.size() <= kMax ? text : text.substr(0, kMax) + "...";
}

common::Error errorOf(common::ErrorKind kind, std::string code, std::string message) {
  common::Error error;
  error.kind = kind;
  error.code = std::move(code);
  error.message = std::move(message);
  return error;
}

bool carriesBody(Method method) {
  return method != Method::kGet;
}

common::Error unsupportedMediaType(const RouteSpec& route) {
  std::string accepted;
  for (const auto& type : route.accepts) accepted += (accepted.empty() ? "" : ", ") + type;
  return errorOf(common::ErrorKind::kUnsupportedMediaType, "unsupported_media_type",
                 "Content-Type must be one of: " + accepted);
}

// The media type without parameters must be one the route accepts; an empty body may omit it.
common::Result<void> checkMediaType(const IncomingRequest& incoming, const RouteSpec& route,
                                    bool unsupported_body) {
  if (unsupported_body) return unsupportedMediaType(route);
  if (route.accepts.empty()) return common::success();
  const std::string content_type = headerOf(incoming.headers, "Content-Type");
  if (content_type.empty() && incoming.body.empty()) return common::success();
  const auto media = text::trim(std::string_view(content_type).substr(0, content_type.find(';')));
  for (const auto& accepted : route.accepts) {
    if (text::equalsIgnoreCase(media, accepted)) return common::success();
  }
  return unsupportedMediaType(route);
}

common::Error payloadTooLarge() {
  return errorOf(common::ErrorKind::kPayloadTooLarge, "payload_too_large",
                 "the request body is over the limit");
}

// A problem for a status no ErrorKind stands for; `outcome` records its code for the audit.
Response ownProblem(std::string& outcome, int status, const std::string& code,
                    const std::string& detail, const std::string& request_id) {
  outcome = code;
  return problemResponse(status, code, detail, request_id);
}

// The library's own answers (request line, headers, body framing) as problems.
common::Result<Response> transportProblem(int status, std::string& outcome,
                                          const std::string& request_id) {
  switch (status) {
    case 400:
      return common::invalidArgument("bad_request", "the HTTP request could not be parsed");
    case 413:
      return payloadTooLarge();
    case 415:
      return errorOf(common::ErrorKind::kUnsupportedMediaType, "unsupported_media_type",
                     "the Content-Encoding of the body is not supported");
    case 414:
      return ownProblem(outcome, 414, "uri_too_long", "the request URI is too long", request_id);
    case 500:
      return common::internalError("the transport failed while reading the request");
    default:
      return ownProblem(outcome, status, "http_" + std::to_string(status),
                        "the request could not be served", request_id);
  }
}

std::string allowHeader(const std::vector<Method>& methods) {
  std::string allow;
  for (auto method : methods) allow += (allow.empty() ? "" : ", ") + std::string(toString(method));
  return allow;
}

}  // namespace

struct Dispatcher::Exchange {
  std::string request_id;
  std::string method_text;
  std::optional<Method> method;
  std::string path;
  std::string route_name = "unmatched";
  std::optional<Principal> principal;
  std::vector<std::pair<std::string, std::string>> extra_headers;
  std::string outcome;  // set when the server itself answered with a problem
};

Dispatcher::Dispatcher(std::shared_ptr<Authenticator> authenticator,
                       std::shared_ptr<AuditSink> audit, std::shared_ptr<MetricsRegistry> metrics)
    : authenticator_(std::move(authenticator)),
      audit_(std::move(audit)),
      metrics_(std::move(metrics)) {}

Response Dispatcher::dispatch(IncomingRequest incoming) const {
  const auto started = std::chrono::steady_clock::now();
  Exchange exchange;
  exchange.request_id = requestIdFrom(headerOf(incoming.headers, kRequestIdHeader));
  exchange.method_text = incoming.method;
  exchange.method = parseMethod(incoming.method);
  exchange.path = incoming.path;

  Response response;
  try {
    auto result = process(incoming, exchange);
    if (result) {
      response = std::move(*result);
      if (exchange.outcome.empty()) {
        exchange.outcome =
            response.status < 400 ? "success" : "http_" + std::to_string(response.status);
      }
    } else {
      response = problemResponse(result.error(), exchange.request_id);
      exchange.outcome =
          result.error().kind == common::ErrorKind::kInternal ? "internal" : result.error().code;
    }
  } catch (const std::exception& e) {  // e.g. bad_alloc: still answer, and say why in the log
    response = problemResponse(common::internalError(e.what()), exchange.request_id);
    exchange.outcome = "internal";
  } catch (...) {
    response = problemResponse(common::internalError("non-exception thrown"), exchange.request_id);
    exchange.outcome = "internal";
  }
  for (auto& header : exchange.extra_headers) response.headers.push_back(std::move(header));
  response.headers.emplace_back(kRequestIdHeader, exchange.request_id);
  finish(exchange, response, std::chrono::steady_clock::now() - started);
  return response;
}

common::Result<Response> Dispatcher::process(IncomingRequest& incoming, Exchange& exchange) const {
  auto lookup = router_.find(exchange.method, incoming.path);
  if (lookup.match) exchange.route_name = lookup.match->spec->name;
  if (incoming.transport_status != 0) {
    return transportProblem(incoming.transport_status, exchange.outcome, exchange.request_id);
  }
  if (!lookup.match) {
    if (lookup.allowed.empty()) {
      return common::notFound("route_not_found", "no route for " + clipped(incoming.path));
    }
    exchange.extra_headers.emplace_back("Allow", allowHeader(lookup.allowed));
    return ownProblem(exchange.outcome, 405, "method_not_allowed",
                      incoming.method + " is not allowed on " + clipped(incoming.path),
                      exchange.request_id);
  }

  const RouteSpec& route = *lookup.match->spec;
  if (route.permission != Permission::kPublic) PROV_TRY(authenticate(incoming, route, exchange));
  // The JSON API's parameters; /boot answers iPXE, which cannot read a problem, a script that
  // waits and retries whatever it is sent (docs/boot.md).
  if (incoming.path.starts_with("/api/")) {
    PROV_TRY(refuseControlCharacters(incoming.query, lookup.match->params));
  }
  if (incoming.body_too_large) return payloadTooLarge();
  if (route.streams_body != static_cast<bool>(incoming.stream)) {
    return common::internalError("route " + route.name + " and transport disagree on streaming");
  }
  if (carriesBody(*exchange.method)) {
    PROV_TRY(checkMediaType(incoming, route, incoming.body_unsupported));
  }

  Request request;
  request.method = *exchange.method;
  request.path = std::move(incoming.path);
  request.body = std::move(incoming.body);
  request.request_id = exchange.request_id;
  request.principal = exchange.principal;
  request.path_params = std::move(lookup.match->params);
  request.headers = std::move(incoming.headers);
  request.query_params = std::move(incoming.query);
  request.route_name = route.name;
  request.read_body = std::move(incoming.stream);
  PROV_ASSIGN(auto response, invoke(route, request));
  if (!response.file_path.empty() && response.status == 200 &&
      !rangesSatisfiable(incoming.ranges, response.file_size)) {
    // The transport would start a 206 it cannot fill and drop the connection.
    exchange.extra_headers.emplace_back("Content-Range",
                                        "bytes */" + std::to_string(response.file_size));
    return ownProblem(exchange.outcome, 416, "range_not_satisfiable",
                      "the Range asks for bytes past the end of the " +
                          std::to_string(response.file_size) + "-byte file",
                      exchange.request_id);
  }
  return response;
}

bool Dispatcher::streamsBody(const std::string& method, std::string_view path) const {
  auto lookup = router_.find(parseMethod(method), path);
  return lookup.match && lookup.match->spec->streams_body;
}

common::Result<Principal> Dispatcher::identify(const IncomingRequest& incoming) const {
  if (!authenticator_) return common::internalError("no authenticator is configured");
  const std::string authorization = headerOf(incoming.headers, "Authorization");
  const auto token = bearerToken(authorization);
  if (token.empty()) {
    return common::unauthenticated("an 'Authorization: Bearer <token>' header is required");
  }
  return authenticator_->authenticate(token);
}

common::Result<void> Dispatcher::authenticate(const IncomingRequest& incoming,
                                              const RouteSpec& route, Exchange& exchange) const {
  auto principal = identify(incoming);
  if (!principal) {
    if (principal.error().kind == common::ErrorKind::kUnauthenticated) {
      exchange.extra_headers.emplace_back("WWW-Authenticate", "Bearer realm=\"provisioner\"");
    }
    return std::move(principal).error();
  }
  exchange.principal = std::move(*principal);
  if (!allows(exchange.principal->role, route.permission)) {
    return common::permissionDenied("role '" + std::string(toString(exchange.principal->role)) +
                                    "' may not " + std::string(toString(route.permission)));
  }
  return common::success();
}

common::Result<Response> Dispatcher::invoke(const RouteSpec& route, const Request& request) const {
  try {
    return route.handler(request);
  } catch (const std::exception& e) {
    return common::internalError("handler of " + route.name + " threw: " + e.what());
  } catch (...) {
    return common::internalError("handler of " + route.name + " threw a non-exception");
  }
}

void Dispatcher::finish(const Exchange& exchange, const Response& response,
                        std::chrono::steady_clock::duration elapsed) const {
  const double seconds = std::chrono::duration<double>(elapsed).count();
  if (metrics_) {
    metrics_->observeRequest(exchange.route_name, exchange.method_text, response.status, seconds);
  }
  if (exchange.method && isMutating(*exchange.method)) audit(exchange, response);

  const auto level = response.status >= 500 ? spdlog::level::err : spdlog::level::info;
  if (!shouldLog(level)) return;  // skip building the line
  nlohmann::json fields = {
      {"request_id", exchange.request_id},
      {"method", exchange.method_text},
      {"route", exchange.route_name},
      {"path", clipped(exchange.path)},
      {"status", response.status},
      {"duration_ms", std::round(seconds * 1e6) / 1e3},  // microsecond resolution
      {"actor", exchange.principal ? nlohmann::json(exchange.principal->name) : nlohmann::json()}};
  logEvent(level, "request", fields);
}

void Dispatcher::audit(const Exchange& exchange, const Response& response) const {
  if (!audit_) return;
  AuditRecord record{exchange.principal,  *exchange.method, exchange.path,   exchange.route_name,
                     exchange.request_id, response.status,  exchange.outcome};
  try {
    audit_->record(record);
  } catch (const std::exception& e) {
    // The answer stands (it may already have changed state); losing the record must be loud.
    logEvent(spdlog::level::critical, "audit record lost",
             {{"request_id", exchange.request_id}, {"error", e.what()}});
  } catch (...) {
    logEvent(spdlog::level::critical, "audit record lost", {{"request_id", exchange.request_id}});
  }
}

std::string requestIdFrom(std::string_view header_value) {
  if (validRequestId(header_value)) return std::string(header_value);
  // Unique, not secret: a per-thread PRNG seeded once is enough and never fails.
  thread_local std::mt19937_64 generator{std::random_device{}()};
  static constexpr char kHex[] = "0123456789abcdef";
  std::string id;
  for (int half = 0; half < 2; ++half) {
    auto bits = generator();
    for (int i = 0; i < 16; ++i, bits >>= 4) id.push_back(kHex[bits & 0x0F]);
  }
  return id;
}

}  // namespace provisioner::http

// The transport-neutral request and response that API handlers see (no cpp-httplib types here).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "common/result.hpp"
#include "provisioner/http/rbac.hpp"

namespace provisioner::http {

enum class Method { kGet, kPost, kPut, kPatch, kDelete };

std::string_view toString(Method method);
// "GET", "POST", ... exactly (HTTP methods are case-sensitive); nullopt for any other method.
std::optional<Method> parseMethod(std::string_view text);
// POST, PUT, PATCH and DELETE: the ones the audit log records.
bool isMutating(Method method);

// Streamed request bodies (large uploads): the sink gets each chunk as it arrives and returns
// false to stop reading. The reader returns false when the transport or the sink stopped early.
using BodySink = std::function<bool(std::string_view chunk)>;
using BodyReader = std::function<bool(const BodySink& sink)>;

// The token of an "Authorization: Bearer <token>" header value (scheme case-insensitive, spaces
// trimmed); empty when the header is not a single bearer token.
std::string_view bearerToken(std::string_view authorization_header);

// Who is calling, as the Authenticator established it from the bearer token.
struct Principal {
  std::int64_t token_id = 0;
  std::string name;
  Role role = Role::kViewer;
};

struct Request {
  Method method = Method::kGet;
  std::string path;  // percent-decoded, without the query string
  std::string body;
  std::string request_id;
  std::optional<Principal> principal;  // set on every non-public route
  std::map<std::string, std::string> path_params;
  std::vector<std::pair<std::string, std::string>> headers;  // as received
  std::multimap<std::string, std::string> query_params;      // percent-decoded
  std::string route_name;                                    // RouteSpec::name of the match
  // Set only on routes with RouteSpec::streams_body (then `body` stays empty); call at most once.
  BodyReader read_body;

  // Case-insensitive; the first value, or "" when the header is absent.
  std::string header(std::string_view name) const;
  // The first value of a query parameter, or nullopt when absent.
  std::optional<std::string> query(std::string_view name) const;
  // The value of a `{name}` segment of the route pattern; "" if the pattern has no such segment.
  const std::string& pathParam(std::string_view name) const;
};

struct Response {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
  // When set, the body is this file (of file_size bytes), streamed by the server, which also
  // answers Range requests (206 with the requested bytes) and HEAD.
  std::string file_path;
  std::uint64_t file_size = 0;
};

// A response whose body is `body` serialised (invalid UTF-8 is replaced, never thrown on).
Response jsonResponse(int status, const nlohmann::json& body);

// Returns the response, or an Error that the server turns into a problem+json response.
using Handler = std::function<common::Result<Response>(const Request&)>;

}  // namespace provisioner::http

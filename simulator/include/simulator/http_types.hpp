// What the simulator's network engine hands a simulated BMC, and what it sends back.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sim {

using HeaderList = std::vector<std::pair<std::string, std::string>>;

struct HttpRequest {
  std::string method;  // "GET", "POST", ...
  std::string path;    // percent-decoded path without the query, e.g. "/redfish/v1/Systems/1"
  std::string query;   // raw query without '?', e.g. "$expand=.($levels=1)"
  HeaderList headers;  // names lower-cased
  std::string body;

  std::string_view header(std::string_view lowerName) const;
};

struct HttpResponse {
  int status = 200;
  HeaderList headers;  // Content-Type defaults to application/json when a body is present
  std::string body;

  static HttpResponse json(int status, std::string body);
  // A Redfish error body with one @Message.ExtendedInfo entry.
  static HttpResponse error(int status, std::string_view messageId, std::string_view message);
};

}  // namespace sim

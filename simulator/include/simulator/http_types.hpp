// What the simulator's network engine hands a simulated BMC, and what it sends back.
#pragma once

#include <functional>
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

struct HttpResponse;
// Sends an answer that was not ready when the handler returned; callable once, from any thread.
using AnswerSink = std::function<void(HttpResponse)>;

struct HttpResponse {
  int status = 200;
  HeaderList headers;  // Content-Type defaults to application/json when a body is present
  std::string body;
  // Set by a handler whose answer comes later (a BMC that downloads a firmware image before it
  // answers SimpleUpdate): the engine ignores the rest, holds the request and calls `later`
  // once with the sink for the real answer. A client that leaves first gets nothing.
  std::function<void(AnswerSink)> later;

  static HttpResponse json(int status, std::string body);
  // A Redfish error body with one @Message.ExtendedInfo entry.
  static HttpResponse error(int status, std::string_view messageId, std::string_view message);
};

}  // namespace sim

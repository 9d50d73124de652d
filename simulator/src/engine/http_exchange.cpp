#include "engine/http_exchange.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <memory>

#include <event2/buffer.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>

namespace sim::engine {
namespace {

const char* methodName(evhttp_cmd_type command) {
  switch (command) {
    case EVHTTP_REQ_GET:
      return "GET";
    case EVHTTP_REQ_POST:
      return "POST";
    case EVHTTP_REQ_HEAD:
      return "HEAD";
    case EVHTTP_REQ_PUT:
      return "PUT";
    case EVHTTP_REQ_DELETE:
      return "DELETE";
    case EVHTTP_REQ_OPTIONS:
      return "OPTIONS";
    case EVHTTP_REQ_TRACE:
      return "TRACE";
    case EVHTTP_REQ_CONNECT:
      return "CONNECT";
    case EVHTTP_REQ_PATCH:
      return "PATCH";
  }
  return "GET";
}

std::string lowerCase(const char* text) {
  std::string out(text == nullptr ? "" : text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::string decodedPath(const evhttp_uri* uri) {
  const char* raw = uri == nullptr ? nullptr : evhttp_uri_get_path(uri);
  if (raw == nullptr || *raw == '\0') return "/";
  std::size_t size = 0;
  std::unique_ptr<char, decltype(&std::free)> decoded(evhttp_uridecode(raw, 0, &size), &std::free);
  return decoded ? std::string(decoded.get(), size) : std::string(raw);
}

std::string readBody(evhttp_request* request) {
  evbuffer* input = evhttp_request_get_input_buffer(request);
  std::string body(evbuffer_get_length(input), '\0');
  if (!body.empty()) evbuffer_copyout(input, body.data(), body.size());
  return body;
}

}  // namespace

HttpRequest readRequest(evhttp_request* request) {
  HttpRequest out;
  out.method = methodName(evhttp_request_get_command(request));
  const evhttp_uri* uri = evhttp_request_get_evhttp_uri(request);
  out.path = decodedPath(uri);
  const char* query = uri == nullptr ? nullptr : evhttp_uri_get_query(uri);
  if (query != nullptr) out.query = query;
  const evkeyvalq* headers = evhttp_request_get_input_headers(request);
  for (const evkeyval* h = headers->tqh_first; h != nullptr; h = h->next.tqe_next) {
    out.headers.emplace_back(lowerCase(h->key), h->value == nullptr ? "" : h->value);
  }
  out.body = readBody(request);
  return out;
}

void sendResponse(evhttp_request* request, const HttpResponse& response) {
  evkeyvalq* headers = evhttp_request_get_output_headers(request);
  bool hasContentType = false;
  for (const auto& [name, value] : response.headers) {
    if (lowerCase(name.c_str()) == "content-type") hasContentType = true;
    if (lowerCase(name.c_str()) == "content-length") continue;  // evhttp computes it
    evhttp_add_header(headers, name.c_str(), value.c_str());
  }
  if (!hasContentType && !response.body.empty()) {
    evhttp_add_header(headers, "Content-Type", "application/json");
  }
  std::unique_ptr<evbuffer, decltype(&evbuffer_free)> body(evbuffer_new(), &evbuffer_free);
  evbuffer_add(body.get(), response.body.data(), response.body.size());
  int status = response.status >= 100 && response.status <= 599 ? response.status : 500;
  evhttp_send_reply(request, status, nullptr, body.get());
}

}  // namespace sim::engine

// The seam between the Redfish operations (crawl, BIOS, boot, update, ...) and the transport:
// one BMC, seen through its authenticated session. The libcurl transport implements it for real
// BMCs; tests may implement it over recorded files.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/result.hpp"

namespace redfish {

enum class Method { kGet, kPost, kPatch, kPut, kDelete };
std::string_view toString(Method method);

using HeaderList = std::vector<std::pair<std::string, std::string>>;

// One part of a multipart/form-data body. A part with `filePath` is streamed from disk.
struct MultipartPart {
  std::string name;         // form field name, e.g. "UpdateParameters", "UpdateFile"
  std::string contentType;  // e.g. "application/json", "application/octet-stream"
  std::string data;         // inline content (when filePath is empty)
  std::string filePath;     // streamed from this file when set
  std::string fileName;     // filename= in Content-Disposition, optional
};

struct Request {
  Method method = Method::kGet;
  // "/redfish/v1/..." (may carry a query such as "?$expand=.($levels=1)"), or an absolute URL on
  // the same BMC (task monitors hand back absolute Locations).
  std::string target;
  std::string body;         // JSON for POST/PATCH/PUT; sent with Content-Type application/json
  HeaderList headers;       // extra headers, e.g. {"If-Match", "\"etag\""}
  std::vector<MultipartPart> multipart;  // non-empty: a multipart/form-data POST instead of body
  bool authenticated = true;  // false: no session/basic auth (service root, the login itself)
};

struct Response {
  long status = 0;
  std::string body;
  HeaderList headers;  // names lower-cased, in arrival order
  std::string url;     // the effective URL that answered

  // The first header with this lower-case name, or "" when absent.
  std::string_view header(std::string_view lowerName) const;
  bool isSuccess() const { return status >= 200 && status < 300; }
};

// Completes exactly once. Transport failures (connect, TLS, time-out after retries, cancel) are
// errors; any HTTP status, including 4xx/5xx after retries, is a Response.
using ResponseCallback = std::function<void(common::Result<Response>)>;

class Client {
 public:
  virtual ~Client() = default;
  // Never blocks; `done` runs on the transport's thread, so it must not block either.
  virtual void sendAsync(Request request, ResponseCallback done) = 0;
  // Blocks the calling thread until the response; never call from inside a callback.
  common::Result<Response> send(Request request);
  // "https://10.1.2.3" or "http://127.0.0.5:8443": scheme, host and port of this BMC.
  virtual const std::string& baseUrl() const = 0;
};

}  // namespace redfish

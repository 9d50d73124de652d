// Service URL parsing and percent-encoding for request targets.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/result.hpp"

namespace provisioner::cli {

// A base URL split the way the HTTP client wants it.
struct Endpoint {
  std::string schemeHostPort;  // "https://prov.example:8443"
  std::string pathPrefix;      // "" or "/prefix" (no trailing slash) when behind a proxy
};

using Query = std::vector<std::pair<std::string, std::string>>;

// Accepts http:// and https:// URLs with an optional port and path; anything else is a config
// error naming the URL.
common::Result<Endpoint> parseEndpoint(const std::string& url);

// RFC 3986 unreserved characters stay, everything else becomes %XX.
std::string percentEncode(std::string_view text);

// "path?k=v&k2=v2", values encoded; `path` is used as given.
std::string withQuery(const std::string& path, const Query& query);

}  // namespace provisioner::cli

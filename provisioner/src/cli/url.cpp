#include "provisioner/cli/url.hpp"

#include <cctype>
#include <charconv>
#include <regex>

#include "provisioner/cli/errors.hpp"

namespace provisioner::cli {

common::Result<Endpoint> parseEndpoint(const std::string& url) {
  // scheme://host[:port][/path]; IPv6 literals in brackets. No user info, query or fragment.
  static const std::regex kUrl(
      R"(^(https?)://([A-Za-z0-9._-]+|\[[0-9A-Fa-f:.]+\])(:[0-9]{1,5})?(/[^?#]*)?$)");
  std::smatch m;
  if (!std::regex_match(url, m, kUrl)) {
    return common::fail(configError("invalid service URL '" + url +
                                    "': expected http://HOST[:PORT] or https://HOST[:PORT]"));
  }
  int port = 0;
  if (m[3].matched) {
    std::string digits = m[3].str().substr(1);
    std::from_chars(digits.data(), digits.data() + digits.size(), port);
  }
  if (port > 65535) {
    return common::fail(configError("invalid port in service URL '" + url + "'"));
  }
  Endpoint endpoint{m[1].str() + "://" + m[2].str() + m[3].str(), m[4].str()};
  while (endpoint.pathPrefix.ends_with('/')) endpoint.pathPrefix.pop_back();
  return endpoint;
}

std::string percentEncode(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size());
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 0x0F];
    }
  }
  return out;
}

std::string withQuery(const std::string& path, const Query& query) {
  std::string target = path;
  char separator = path.find('?') == std::string::npos ? '?' : '&';
  for (const auto& [key, value] : query) {
    target += separator;
    target += percentEncode(key) + "=" + percentEncode(value);
    separator = '&';
  }
  return target;
}

}  // namespace provisioner::cli

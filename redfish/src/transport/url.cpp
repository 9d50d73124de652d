#include "transport/url.hpp"

#include <algorithm>
#include <cctype>
#include "transport/text.hpp"

namespace redfish::detail {
namespace {

common::Error badUrl(std::string_view url, std::string_view why) {
  return common::invalidArgument(
      "invalid_bmc_url", "BMC URL '" + std::string(url) + "' is invalid: " + std::string(why),
      "baseUrl");
}

bool validHost(std::string_view host) {
  if (host.empty()) return false;
  if (host.front() == '[') return host.back() == ']' && host.size() > 2;  // IPv6 literal
  return std::all_of(host.begin(), host.end(), [](unsigned char c) {
    return std::isalnum(c) || c == '.' || c == '-' || c == '_';
  });
}

// Splits "host:port" (IPv6 literals in brackets); port empty when absent.
bool splitAuthority(std::string_view authority, std::string_view& host, std::string_view& port) {
  std::size_t colon = std::string_view::npos;
  if (!authority.empty() && authority.front() == '[') {
    auto close = authority.find(']');
    if (close == std::string_view::npos) return false;
    if (close + 1 < authority.size()) {
      if (authority[close + 1] != ':') return false;
      colon = close + 1;
    }
  } else {
    colon = authority.rfind(':');
  }
  host = authority.substr(0, colon);
  port = colon == std::string_view::npos ? std::string_view{} : authority.substr(colon + 1);
  return true;
}

bool validPort(std::string_view port) {
  if (port.empty() || port.size() > 5) return false;
  if (!std::all_of(port.begin(), port.end(), [](unsigned char c) { return std::isdigit(c); })) {
    return false;
  }
  int value = std::stoi(std::string(port));  // digits only, at most 5: cannot throw
  return value > 0 && value <= 65535;
}

}  // namespace

common::Result<std::string> normaliseBaseUrl(std::string_view url) {
  auto schemeEnd = url.find("://");
  if (schemeEnd == std::string_view::npos) return badUrl(url, "no scheme");
  std::string scheme = lowered(url.substr(0, schemeEnd));
  if (scheme != "http" && scheme != "https") return badUrl(url, "scheme is not http or https");
  std::string_view rest = url.substr(schemeEnd + 3);
  std::string_view authority = rest.substr(0, rest.find_first_of("/?#"));
  if (authority.find('@') != std::string_view::npos) return badUrl(url, "credentials in URL");
  std::string_view host;
  std::string_view port;
  if (!splitAuthority(authority, host, port) || !validHost(host)) return badUrl(url, "bad host");
  bool hasColon = authority.size() > host.size();
  if (hasColon && !validPort(port)) return badUrl(url, "bad port");
  std::string out = scheme + "://" + lowered(host);
  bool defaultPort = (scheme == "https" && port == "443") || (scheme == "http" && port == "80");
  if (!port.empty() && !defaultPort) out += ":" + std::to_string(std::stoi(std::string(port)));
  return out;
}

common::Result<std::string> resolveTarget(const std::string& normalisedBase,
                                          std::string_view target) {
  if (!target.empty() && target.front() == '/') return normalisedBase + std::string(target);
  if (target.find("://") == std::string_view::npos) {
    return common::invalidArgument(
        "invalid_target", "request target must start with '/' or be an absolute URL", "target");
  }
  auto authorityEnd = target.find_first_of("/?#", target.find("://") + 3);
  std::string_view origin = target.substr(0, authorityEnd);
  auto base = normaliseBaseUrl(origin);
  if (!base || *base != normalisedBase) {
    return common::invalidArgument("foreign_target",
                                   "absolute target is not on the BMC " + normalisedBase, "target");
  }
  std::string_view path =
      authorityEnd == std::string_view::npos ? std::string_view{"/"} : target.substr(authorityEnd);
  if (path.front() != '/') return normalisedBase + "/" + std::string(path);
  return normalisedBase + std::string(path);
}

}  // namespace redfish::detail

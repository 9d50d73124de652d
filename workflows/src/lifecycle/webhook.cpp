#ifndef CPPHTTPLIB_OPENSSL_SUPPORT
#define CPPHTTPLIB_OPENSSL_SUPPORT  // https:// webhooks
#endif
#include "webhook.hpp"

#include <httplib.h>

namespace workflows::lifecycle {
namespace {

constexpr int kTimeoutSeconds = 5;

// scheme://host[:port] and the path of the webhook URL.
bool splitUrl(const std::string& url, std::string& origin, std::string& path) {
  const auto scheme = url.find("://");
  if (scheme == std::string::npos) return false;
  const std::string prefix = url.substr(0, scheme);
  if (prefix != "http" && prefix != "https") return false;
  const auto slash = url.find('/', scheme + 3);
  origin = url.substr(0, slash);
  path = slash == std::string::npos ? "/" : url.substr(slash);
  return origin.size() > scheme + 3;
}

}  // namespace

common::Result<WebhookAnswer> postWebhook(const std::string& url, const std::string& token,
                                          const nlohmann::json& payload) {
  std::string origin, path;
  if (!splitUrl(url, origin, path)) {
    return common::fail(common::invalidArgument(
        "invalid_webhook_url", "the webhook URL is not http(s)://host/path: " + url, "url"));
  }
  httplib::Client client(origin);
  client.set_connection_timeout(kTimeoutSeconds, 0);
  client.set_read_timeout(kTimeoutSeconds, 0);
  client.set_write_timeout(kTimeoutSeconds, 0);
  httplib::Headers headers;
  if (!token.empty()) headers.emplace("Authorization", "Bearer " + token);
  auto response = client.Post(path, headers, payload.dump(), "application/json");
  if (!response) {
    return common::fail(common::unavailable(
        "webhook_unreachable",
        "the webhook " + url + " did not answer: " + httplib::to_string(response.error())));
  }
  return WebhookAnswer{response->status, response->body};
}

}  // namespace workflows::lifecycle

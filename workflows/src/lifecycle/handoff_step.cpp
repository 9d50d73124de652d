// handoff: the node is ready, and the scheduler hears of it through its webhook.
#ifndef CPPHTTPLIB_OPENSSL_SUPPORT
#define CPPHTTPLIB_OPENSSL_SUPPORT  // https:// webhooks
#endif
#include <httplib.h>

#include "handoff_payload.hpp"
#include "inventory/nodes.hpp"
#include "lifecycle_internal.hpp"

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

StepOutcome post(const Env& env, const nlohmann::json& payload) {
  const auto& url = env.settings.handoff_url;
  std::string origin, path;
  if (!splitUrl(url, origin, path)) {
    return StepOutcome::fail("invalid_handoff_url", "the handoff URL is not http(s)://host/path",
                             {{"url", url}});
  }
  httplib::Client client(origin);
  client.set_connection_timeout(kTimeoutSeconds, 0);
  client.set_read_timeout(kTimeoutSeconds, 0);
  client.set_write_timeout(kTimeoutSeconds, 0);
  httplib::Headers headers;
  if (!env.settings.handoff_token.empty()) {
    headers.emplace("Authorization", "Bearer " + env.settings.handoff_token);
  }
  auto response = client.Post(path, headers, payload.dump(), "application/json");
  if (!response) {
    return StepOutcome::retry("handoff_unreachable",
                              "the scheduler webhook " + url +
                                  " did not answer: " + httplib::to_string(response.error()));
  }
  if (response->status < 200 || response->status >= 300) {
    return StepOutcome::retry(
        "handoff_refused",
        "the scheduler webhook " + url + " answered HTTP " + std::to_string(response->status));
  }
  return StepOutcome::succeed("handed to the scheduler at " + url);
}

}  // namespace

StepOutcome handoffStep(const Env& env, StepContext& ctx) {
  auto node_id = runNode(ctx);
  if (!node_id) return StepOutcome::fail("no_node", "handoff needs the node");
  enterState(env, ctx, "ready");
  if (env.settings.handoff_url.empty()) return StepOutcome::succeed("node ready");
  auto detail = inventory::getNodeDetail(*env.deps.db, *node_id);
  if (!detail) return outcomeFor(detail.error(), "reading the node");
  auto payload = handoffPayload(env.settings.handoff_format, *detail);
  if (!payload) {
    return StepOutcome::fail(payload.error().code, payload.error().message);
  }
  return post(env, *payload);
}

}  // namespace workflows::lifecycle

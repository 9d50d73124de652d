// handoff: the node is ready, and the scheduler hears of it through its webhook.
#include "handoff_payload.hpp"
#include "inventory/nodes.hpp"
#include "lifecycle_internal.hpp"
#include "webhook.hpp"

namespace workflows::lifecycle {
namespace {

StepOutcome post(const Env& env, const nlohmann::json& payload) {
  const auto& url = env.settings.handoff_url;
  auto answer = postWebhook(url, env.settings.handoff_token, payload);
  if (!answer && answer.error().kind == common::ErrorKind::kInvalidArgument) {
    return StepOutcome::fail("invalid_handoff_url", "the handoff URL is not http(s)://host/path",
                             {{"url", url}});
  }
  if (!answer) {
    return StepOutcome::retry("handoff_unreachable",
                              "the scheduler webhook " + url + " did not answer: " +
                                  answer.error().message);
  }
  if (answer->status < 200 || answer->status >= 300) {
    return StepOutcome::retry(
        "handoff_refused",
        "the scheduler webhook " + url + " answered HTTP " + std::to_string(answer->status));
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

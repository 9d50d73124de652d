// The claim's Redfish event subscription: the BMC posts its alerts to this service with a
// per-node secret in the Context, of which only the hash is stored.
#include "common/secret_box.hpp"
#include "inventory/bmc_credentials.hpp"
#include "lifecycle_internal.hpp"
#include "redfish/errors.hpp"
#include "redfish/events.hpp"

namespace workflows::lifecycle {
namespace {

std::string eventDestination(const Env& env) {
  std::string base = env.settings.public_url;
  while (!base.empty() && base.back() == '/') base.pop_back();
  return base + "/api/v1/events/redfish";
}

// An earlier try may have subscribed before its outcome was written: one subscription per node.
void removeOurs(redfish::BmcClient& client, const std::string& destination,
                const std::string& context_prefix) {
  auto existing = redfish::listSubscriptions(client);
  if (!existing) return;
  for (const auto& s : *existing) {
    if (s.destination == destination && s.context.rfind(context_prefix, 0) == 0) {
      (void)redfish::unsubscribe(client, s.path);
    }
  }
}

}  // namespace

void subscribeEvents(const Env& env, StepContext& ctx, redfish::BmcClient& client,
                     inventory::Id node_id) {
  if (env.settings.public_url.empty()) {
    ctx.event("events_not_subscribed", "no public URL is configured for BMC events");
    return;
  }
  const std::string destination = eventDestination(env);
  const std::string prefix = "node:" + std::to_string(node_id) + ":";
  removeOurs(client, destination, prefix);
  std::string secret = common::base64Encode(common::randomBytes(24));
  for (char& c : secret) c = (c == '+') ? '-' : (c == '/') ? '_' : c;
  redfish::SubscriptionRequest request;
  request.destination = destination;
  request.context = prefix + secret;
  request.eventTypes = {"Alert"};
  auto subscribed = redfish::subscribe(client, request);
  if (!subscribed) {
    // Many BMCs have no EventService or refuse more subscriptions: the lifecycle polls anyway.
    ctx.event("events_not_subscribed",
              "the BMC took no event subscription: " + subscribed.error().message,
              {{"code", subscribed.error().code}});
    ctx.data()["claim"]["subscribed"] = false;
    return;
  }
  auto stored = inventory::setBmcEventTokenHash(*env.deps.db, node_id, common::sha256Hex(secret));
  if (!stored) {
    ctx.event("events_not_subscribed",
              "could not record the event token: " + stored.error().message);
    (void)redfish::unsubscribe(client, *subscribed);
    return;
  }
  ctx.data()["claim"]["subscribed"] = true;
  ctx.event("events_subscribed", "BMC events go to " + destination,
            {{"destination", destination}, {"subscription", *subscribed}});
}

}  // namespace workflows::lifecycle

// Redfish event subscriptions (EventService/Subscriptions).
#pragma once

#include <string>
#include <vector>

#include "common/result.hpp"
#include "redfish/client.hpp"

namespace redfish {

struct SubscriptionRequest {
  std::string destination;                    // https://service/api/v1/events/redfish
  std::string context;                        // opaque, echoed in events
  std::vector<std::string> registryPrefixes;  // preferred when the service lists RegistryPrefixes
  std::vector<std::string> eventTypes;        // else these (e.g. "Alert"), when supported
};

struct Subscription {
  std::string path, destination, context;
};

// Returns the new subscription's path (Location header).
common::Result<std::string> subscribe(Client& client, const SubscriptionRequest& request);
common::Result<std::vector<Subscription>> listSubscriptions(Client& client);
common::Result<void> unsubscribe(Client& client, const std::string& subscriptionPath);

}  // namespace redfish

#include "redfish/events.hpp"

#include "http_util.hpp"
#include "redfish/errors.hpp"

namespace redfish {
namespace {

struct EventService {
  ops::Resource service;
  std::string subscriptionsPath;
};

common::Result<EventService> eventService(Client& client) {
  PROV_ASSIGN(auto root, ops::getResource(client, "/redfish/v1"));
  auto path = odataLink(root.body, "EventService");
  if (!path) return ops::notSupported("the service root links no EventService");
  PROV_ASSIGN(auto service, ops::getResource(client, *path));
  auto subscriptions = odataLink(service.body, "Subscriptions");
  if (!subscriptions) return ops::notSupported("EventService links no Subscriptions");
  return EventService{std::move(service), *subscriptions};
}

bool supports(const Json& service, std::string_view key) {
  const Json* values = member(service, key);
  return values != nullptr && values->is_array() && !values->empty();
}

}  // namespace

common::Result<std::string> subscribe(Client& client, const SubscriptionRequest& request) {
  PROV_ASSIGN(auto events, eventService(client));
  Json body = {
      {"Destination", request.destination}, {"Protocol", "Redfish"}, {"Context", request.context}};
  if (!request.registryPrefixes.empty() && supports(events.service.body, "RegistryPrefixes")) {
    body["RegistryPrefixes"] = request.registryPrefixes;
  } else if (!request.eventTypes.empty() &&
             supports(events.service.body, "EventTypesForSubscription")) {
    body["EventTypes"] = request.eventTypes;
  }
  PROV_ASSIGN(auto response, ops::postJson(client, events.subscriptionsPath, body));
  std::string location = ops::pathOf(response.header("location"));
  if (location.empty()) {
    if (auto parsed = parseBody(response.body, response.url); parsed) {
      location = odataId(*parsed).value_or("");
    }
  }
  if (location.empty()) return malformedResponse(response.url, "no subscription location");
  return location;
}

common::Result<std::vector<Subscription>> listSubscriptions(Client& client) {
  PROV_ASSIGN(auto events, eventService(client));
  PROV_ASSIGN(auto collection, ops::getResource(client, events.subscriptionsPath));
  std::vector<Subscription> out;
  for (const auto& link : memberLinks(collection.body)) {
    PROV_ASSIGN(auto item, ops::getResource(client, link));
    out.push_back(Subscription{link, stringAt(item.body, "Destination").value_or(""),
                               stringAt(item.body, "Context").value_or("")});
  }
  return out;
}

common::Result<void> unsubscribe(Client& client, const std::string& subscriptionPath) {
  Request request;
  request.method = Method::kDelete;
  request.target = subscriptionPath;
  PROV_TRY(ops::expectSuccess(client.send(std::move(request)), "DELETE"));
  return common::success();
}

}  // namespace redfish

// POST /api/v1/events/redfish: the EventDestination the claim step subscribes each BMC to. BMCs
// send no bearer token, so the subscription's Context carries "node:<id>:<secret>", checked
// against the secret's hash; anything else is refused before anything is written.
#include <nlohmann/json.hpp>

#include <charconv>

#include "common/secret_box.hpp"
#include "inventory/bmc_credentials.hpp"
#include "inventory/nodes.hpp"
#include "provisioner/http/json_input.hpp"
#include "routes.hpp"
#include "workflows/engine.hpp"
#include "workflows/lifecycle.hpp"

namespace provisioner::api {
namespace {

using common::Result;
using http::Request;
using http::Response;
using nlohmann::json;

constexpr std::size_t kMaxEvents = 64;
constexpr std::size_t kMaxIdLength = 256;

common::Error badContext() {
  common::Error e = common::unauthenticated("the event's Context does not name a subscription");
  e.code = "invalid_event_context";
  return e;
}

// "node:<id>:<secret>" -> the node, when the secret is that node's.
Result<inventory::Id> authenticatedNode(const ApiContext& ctx, const json& body) {
  auto it = body.find("Context");
  if (it == body.end() || !it->is_string()) return common::fail(badContext());
  const std::string& context = it->get_ref<const std::string&>();
  const auto second = context.find(':', 5);
  if (context.rfind("node:", 0) != 0 || second == std::string::npos) {
    return common::fail(badContext());
  }
  inventory::Id node = 0;
  const char* first = context.data() + 5;
  const char* last = context.data() + second;
  auto [ptr, ec] = std::from_chars(first, last, node);
  const std::string secret = context.substr(second + 1);
  if (ec != std::errc() || ptr != last || node <= 0 || secret.empty()) {
    return common::fail(badContext());
  }
  PROV_ASSIGN(auto known,
              inventory::nodeForBmcEventToken(*ctx.db, node, common::sha256Hex(secret)));
  if (!known) return common::fail(badContext());
  return *known;
}

// What the timeline keeps of the events: their MessageIds and origins, bounded.
json eventSummary(const json& body) {
  json ids = json::array();
  json origins = json::array();
  auto events = body.find("Events");
  if (events == body.end() || !events->is_array()) return {{"message_ids", ids}};
  for (const auto& event : *events) {
    if (ids.size() >= kMaxEvents) break;
    if (!event.is_object()) continue;
    auto id = event.find("MessageId");
    if (id != event.end() && id->is_string() &&
        id->get_ref<const std::string&>().size() <= kMaxIdLength) {
      ids.push_back(*id);
    }
    auto origin = event.find("OriginOfCondition");
    if (origin != event.end() && origin->is_object()) {
      auto link = origin->find("@odata.id");
      if (link != origin->end() && link->is_string() &&
          link->get_ref<const std::string&>().size() <= kMaxIdLength) {
        origins.push_back(*link);
      }
    }
  }
  return {{"message_ids", ids}, {"origins", origins}};
}

std::string eventMessage(const json& summary) {
  std::string message = "Redfish event";
  const auto& ids = summary["message_ids"];
  for (std::size_t i = 0; i < ids.size() && i < 4; ++i) {
    message += (i == 0 ? ": " : ", ") + ids[i].get<std::string>();
  }
  if (ids.size() > 4) message += ", ...";
  return message;
}

Result<Response> postRedfishEvent(const ApiContext& ctx, const Request& req) {
  if (!ctx.engine) {
    return common::fail(common::unavailable(
        "workflows_disabled", "this service runs without the workflow engine (--no-workflows)"));
  }
  PROV_ASSIGN(auto body, http::parseJsonObject(req.body));
  PROV_ASSIGN(auto node, authenticatedNode(ctx, body));
  const json summary = eventSummary(body);
  inventory::NodeEvent event;
  event.node_id = node;
  event.actor = "bmc";
  event.kind = "redfish_event";
  event.message = eventMessage(summary);
  event.detail_json = summary.dump();
  PROV_TRY(inventory::appendNodeEvent(*ctx.db, event));
  PROV_TRY(ctx.engine->signalNode(workflows::kNodeLifecycle, node));
  return http::jsonResponse(202, {{"node_id", node}, {"events", summary["message_ids"].size()}});
}

}  // namespace

void addRedfishEventRoutes(http::ApiServer& server, const ContextPtr& ctx) {
  // Public: BMCs cannot send a bearer token; the Context secret authenticates instead.
  server.addRoute({http::Method::kPost, "/api/v1/events/redfish", "events.redfish",
                   http::Permission::kPublic, withContext(ctx, postRedfishEvent)});
}

}  // namespace provisioner::api

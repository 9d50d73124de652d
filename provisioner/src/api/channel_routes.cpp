// Channels (stable, canary, ...) point at an image version; promote and roll back are one call
// each, audited, with their history kept.
#include <nlohmann/json.hpp>

#include "catalog_views.hpp"
#include "input.hpp"
#include "inventory/images.hpp"
#include "routes.hpp"

namespace provisioner::api {
namespace {

using common::Result;
using http::Request;
using http::Response;

constexpr std::size_t kMaxReasonLength = 1024;

Result<Response> channelWithHistory(const ApiContext& ctx, const std::string& name, int status) {
  PROV_ASSIGN(auto channel, inventory::getChannel(*ctx.db, name));
  PROV_ASSIGN(auto history, inventory::channelHistory(*ctx.db, name));
  auto body = toJson(channel);
  nlohmann::json events = nlohmann::json::array();
  for (const auto& event : history) events.push_back(toJson(event));
  body["history"] = events;
  return http::jsonResponse(status, body);
}

Result<Response> listChannels(const ApiContext& ctx, const Request&) {
  PROV_ASSIGN(auto channels, inventory::listChannels(*ctx.db));
  nlohmann::json items = nlohmann::json::array();
  for (const auto& c : channels) items.push_back(toJson(c));
  return http::jsonResponse(200, {{"items", items}, {"next_cursor", nullptr}});
}

Result<Response> getChannel(const ApiContext& ctx, const Request& req) {
  return channelWithHistory(ctx, req.pathParam("name"), 200);
}

// POST /api/v1/channels/{name}/promote {"image": "...", "version": "...", "reason": "..."}
Result<Response> promote(const ApiContext& ctx, const Request& req) {
  PROV_ASSIGN(auto body, http::parseJsonObject(req.body));
  http::FieldReader in(body);
  inventory::ImageRef target;
  PROV_ASSIGN(target.name, requiredText(in, "image", 64));
  PROV_ASSIGN(target.version, requiredText(in, "version", 64));
  PROV_ASSIGN(auto reason, in.optionalString("reason", kMaxReasonLength));
  PROV_TRY(inventory::promoteChannel(*ctx.db, req.pathParam("name"), target, actorOf(req),
                                     reason.value_or("")));
  return channelWithHistory(ctx, req.pathParam("name"), 200);
}

// POST /api/v1/channels/{name}/rollback {"version"?: "...", "reason": "..."}: without a version,
// back to what the channel pointed at before its current image.
Result<Response> rollback(const ApiContext& ctx, const Request& req) {
  PROV_ASSIGN(auto body, http::parseJsonObject(req.body.empty() ? "{}" : req.body));
  http::FieldReader in(body);
  PROV_ASSIGN(auto version, in.optionalString("version", 64));
  PROV_ASSIGN(auto reason, in.optionalString("reason", kMaxReasonLength));
  std::optional<inventory::ImageRef> target;
  if (version) {
    PROV_ASSIGN(auto current, inventory::getChannel(*ctx.db, req.pathParam("name")));
    target = inventory::ImageRef{current.image.name, trimmed(*version)};
  }
  PROV_TRY(inventory::rollbackChannel(*ctx.db, req.pathParam("name"), target, actorOf(req),
                                      reason.value_or("")));
  return channelWithHistory(ctx, req.pathParam("name"), 200);
}

}  // namespace

void addChannelRoutes(http::ApiServer& server, const ContextPtr& ctx) {
  using http::Method;
  using http::Permission;
  server.addRoute({Method::kGet, "/api/v1/channels", "channels.list", Permission::kReadInventory,
                   withContext(ctx, listChannels)});
  server.addRoute({Method::kGet, "/api/v1/channels/{name}", "channels.get",
                   Permission::kReadInventory, withContext(ctx, getChannel)});
  server.addRoute({Method::kPost, "/api/v1/channels/{name}/promote", "channels.promote",
                   Permission::kWriteImages, withContext(ctx, promote)});
  server.addRoute({Method::kPost, "/api/v1/channels/{name}/rollback", "channels.rollback",
                   Permission::kWriteImages, withContext(ctx, rollback)});
}

}  // namespace provisioner::api

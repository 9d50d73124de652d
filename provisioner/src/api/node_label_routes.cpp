// Node labels: PATCH /api/v1/nodes/{id}/labels merges {"labels": {"key": "value" | null}}.
#include <nlohmann/json.hpp>

#include "input.hpp"
#include "inventory/node_labels.hpp"
#include "json_views.hpp"
#include "routes.hpp"

namespace provisioner::api {
namespace {

using common::Result;
using http::Request;
using http::Response;

// {"key": "value"} sets, {"key": null} removes; any other value names its field.
Result<inventory::LabelChanges> readLabelChanges(const nlohmann::json& body) {
  auto it = body.find("labels");
  if (it == body.end() || it->is_null()) {
    return common::fail(common::invalidArgument("missing_field", "labels is required", "labels"));
  }
  if (!it->is_object()) {
    return common::fail(
        common::invalidArgument("invalid_field", "labels must be an object", "labels"));
  }
  inventory::LabelChanges changes;
  for (const auto& [key, value] : it->items()) {
    if (value.is_null()) {
      changes.emplace(key, std::nullopt);
    } else if (value.is_string()) {
      changes.emplace(key, value.get<std::string>());
    } else {
      return common::fail(common::invalidArgument(
          "invalid_label", "labels." + key + " must be a string or null", "labels." + key));
    }
    PROV_TRY(inventory::checkLabel(key, changes.at(key).value_or("x")));
  }
  return changes;
}

Result<Response> patchLabels(const ApiContext& ctx, const Request& req) {
  PROV_ASSIGN(auto id, idParam(req, "id"));
  PROV_ASSIGN(auto body, http::parseJsonObject(req.body));
  PROV_ASSIGN(auto changes, readLabelChanges(body));
  PROV_ASSIGN(auto node, inventory::mergeNodeLabels(*ctx.db, id, changes, actorOf(req)));
  return http::jsonResponse(200, toJson(node));
}

}  // namespace

void addNodeLabelRoutes(http::ApiServer& server, const ContextPtr& ctx) {
  server.addRoute({http::Method::kPatch, "/api/v1/nodes/{id}/labels", "nodes.labels",
                   http::Permission::kOperateNodes, withContext(ctx, patchLabels)});
}

}  // namespace provisioner::api

// Campaigns: the nodes a selector picks, creating a campaign with its planned nodes in one
// transaction, and reads. Transitions, node updates and the timeline are in
// campaigns_updates.cpp.
#include <nlohmann/json.hpp>

#include "campaign_rows.hpp"
#include "catalog_values.hpp"
#include "inventory/campaigns.hpp"
#include "queries_campaigns.hpp"
#include "values.hpp"

namespace inventory {
namespace {

using detail::Tx;
using nlohmann::json;

std::string idArray(const std::vector<Id>& ids) {
  std::string out = "{";
  for (Id id : ids) {
    if (out.size() > 1) out.push_back(',');
    out += std::to_string(id);
  }
  out.push_back('}');
  return out;
}

// Parsed JSON text of a planned node, or an error naming the node's field.
common::Result<json> jsonField(const std::string& text, json::value_t type,
                               const std::string& field) {
  json parsed = json::parse(text.empty() ? (type == json::value_t::array ? "[]" : "{}") : text,
                            nullptr, false);
  if (parsed.is_discarded() || parsed.type() != type) {
    return common::fail(common::invalidArgument(
        "invalid_json",
        field + " must be a JSON " + (type == json::value_t::array ? "array" : "object"), field));
  }
  return parsed;
}

common::Result<void> validateNewCampaign(const NewCampaign& c) {
  if (!detail::isCatalogName(c.name)) {
    return common::invalidArgument("invalid_name", "name must match [a-z0-9][a-z0-9._-]{0,63}",
                                   "name");
  }
  if (c.kind != "firmware" && c.kind != "image") {
    return common::invalidArgument("invalid_kind", "kind must be firmware or image", "kind");
  }
  if (c.kind == "firmware" && (c.baseline_name.empty() || !c.baseline_revision)) {
    return common::invalidArgument("missing_field", "a firmware campaign names a baseline revision",
                                   "baseline");
  }
  if (c.kind == "image" && (c.image_name.empty() || c.image_version.empty())) {
    return common::invalidArgument("missing_field", "an image campaign names an image version",
                                   "image");
  }
  if (c.nodes.empty()) {
    return common::invalidArgument("campaign_selects_nothing", "the selector picks no node",
                                   "selector");
  }
  PROV_TRY(detail::requireJson(c.spec_json, "spec"));
  return common::success();
}

common::Result<std::string> plannedNodesJson(const std::vector<PlannedCampaignNode>& nodes) {
  json out = json::array();
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const auto& n = nodes[i];
    const std::string at = "nodes[" + std::to_string(i) + "]";
    if (n.wave < 0 || n.position < 0 || n.estimated_seconds < 0) {
      return common::fail(common::invalidArgument(
          "invalid_field", "wave, position and estimated_seconds must not be negative", at));
    }
    PROV_ASSIGN(auto components,
                jsonField(n.components_json, json::value_t::array, at + ".components"));
    PROV_ASSIGN(auto labels, jsonField(n.labels_json, json::value_t::object, at + ".labels"));
    out.push_back({{"node_id", n.node_id},
                   {"wave", n.wave},
                   {"position", n.position},
                   {"components", std::move(components)},
                   {"estimated_seconds", n.estimated_seconds},
                   {"site", n.site},
                   {"rack", n.rack},
                   {"hardware_model", n.hardware_model},
                   {"labels", std::move(labels)}});
  }
  return out.dump(-1, ' ', false, json::error_handler_t::replace);
}

common::Result<Campaign> readCampaign(Tx& tx, Id campaign_id) {
  auto rows = tx.exec(detail::kSelectCampaign, campaign_id);
  if (rows.empty()) return detail::campaignNotFound(campaign_id);
  return detail::campaignFromRow(rows[0]);
}

common::Result<void> requireCampaign(Tx& tx, Id campaign_id) {
  if (tx.exec(detail::kCampaignExists, campaign_id).empty()) {
    return common::fail(detail::campaignNotFound(campaign_id));
  }
  return common::success();
}

}  // namespace

common::Result<std::vector<CampaignCandidate>> campaignCandidates(Database& db,
                                                                  const CampaignSelector& s) {
  json labels = json::object();
  for (const auto& [key, value] : s.labels) labels[key] = value;
  const std::string labels_text = labels.dump(-1, ' ', false, json::error_handler_t::replace);
  return detail::withRead(
      db, "campaign_candidates", [&](Tx& tx) -> common::Result<std::vector<CampaignCandidate>> {
        std::vector<CampaignCandidate> out;
        for (const auto& row :
             tx.exec(detail::kSelectCampaignCandidates, s.site, detail::textArray(s.racks), s.model,
                     detail::textArray(s.states), labels_text, idArray(s.node_ids))) {
          CampaignCandidate c;
          c.node_id = detail::id(row[0]);
          c.chassis_serial = detail::text(row[1]);
          c.state = detail::text(row[2]);
          c.hardware_model = detail::text(row[3]);
          c.site = detail::text(row[4]);
          c.rack = detail::text(row[5]);
          c.labels_json = detail::text(row[6]);
          out.push_back(std::move(c));
        }
        return out;
      });
}

common::Result<Campaign> createCampaign(Database& db, const NewCampaign& c) {
  PROV_TRY(validateNewCampaign(c));
  PROV_ASSIGN(auto nodes_json, plannedNodesJson(c.nodes));
  std::vector<Id> ids;
  ids.reserve(c.nodes.size());
  for (const auto& n : c.nodes) ids.push_back(n.node_id);
  const auto now = detail::campaignMicros(c.now);
  return detail::withTransaction(db, "create_campaign", [&](Tx& tx) -> common::Result<Campaign> {
    tx.exec(detail::kLockCampaignNodes, detail::kCampaignNodesLockKey);
    auto busy = tx.exec(detail::kSelectNodesInOpenCampaigns, idArray(ids));
    if (!busy.empty()) return detail::nodeInOtherCampaign(busy[0]);
    const std::optional<int> revision = c.kind == "firmware" ? c.baseline_revision : std::nullopt;
    Id campaign_id = detail::id(tx.exec(detail::kInsertCampaign, c.name, c.kind, c.spec_json,
                                        c.kind == "firmware" ? c.baseline_name : std::string(),
                                        revision, c.kind == "image" ? c.image_name : std::string(),
                                        c.kind == "image" ? c.image_version : std::string(),
                                        c.created_by, now)[0][0]);
    tx.exec(detail::kInsertCampaignNodes, campaign_id, nodes_json, now);
    const json detail = {{"nodes", c.nodes.size()}};
    tx.exec(detail::kInsertCampaignEvent, campaign_id, std::optional<Id>(), now, c.created_by,
            "created",
            c.kind + " campaign " + c.name + " created with " + std::to_string(c.nodes.size()) +
                " nodes",
            detail.dump());
    return readCampaign(tx, campaign_id);
  });
}

common::Result<Campaign> getCampaign(Database& db, Id campaign_id) {
  return detail::withRead(db, "get_campaign",
                          [&](Tx& tx) { return readCampaign(tx, campaign_id); });
}

common::Result<Page<Campaign>> listCampaigns(Database& db, const CampaignFilter& f) {
  const int limit = detail::clampLimit(f.page.limit);
  return detail::withRead(db, "list_campaigns", [&](Tx& tx) -> common::Result<Page<Campaign>> {
    std::vector<Campaign> items;
    for (const auto& row :
         tx.exec(detail::kSelectCampaignPage, f.state, f.kind, f.page.after, limit + 1)) {
      items.push_back(detail::campaignFromRow(row));
    }
    return detail::makePage(std::move(items), limit);
  });
}

common::Result<std::vector<CampaignNode>> campaignNodes(Database& db, Id campaign_id,
                                                        const CampaignNodeFilter& f) {
  const std::optional<long long> limit =
      f.limit > 0 ? std::optional<long long>(f.limit) : std::nullopt;
  return detail::withRead(
      db, "campaign_nodes", [&](Tx& tx) -> common::Result<std::vector<CampaignNode>> {
        std::vector<CampaignNode> out;
        for (const auto& row : tx.exec(detail::kSelectCampaignNodes, campaign_id, f.wave,
                                       detail::textArray(f.states), f.after_position, limit)) {
          out.push_back(detail::campaignNodeFromRow(row));
        }
        if (out.empty()) PROV_TRY(requireCampaign(tx, campaign_id));
        return out;
      });
}

common::Result<CampaignNode> getCampaignNode(Database& db, Id campaign_id, Id node_id) {
  return detail::withRead(db, "get_campaign_node", [&](Tx& tx) -> common::Result<CampaignNode> {
    auto rows = tx.exec(detail::kSelectCampaignNode, campaign_id, node_id);
    if (rows.empty()) {
      PROV_TRY(requireCampaign(tx, campaign_id));
      return common::fail(common::notFound(
          "campaign_node_not_found", "node " + std::to_string(node_id) + " is not in campaign " +
                                         std::to_string(campaign_id)));
    }
    return detail::campaignNodeFromRow(rows[0]);
  });
}

common::Result<std::vector<CampaignWaveProgress>> campaignProgress(Database& db, Id campaign_id) {
  return detail::withRead(
      db, "campaign_progress", [&](Tx& tx) -> common::Result<std::vector<CampaignWaveProgress>> {
        std::vector<CampaignWaveProgress> waves;
        for (const auto& row : tx.exec(detail::kSelectCampaignProgress, campaign_id)) {
          const int wave = detail::integer(row[0]);
          if (waves.empty() || waves.back().wave != wave) waves.push_back({wave, 0, 0, {}});
          const int count = detail::integer(row[2]);
          waves.back().total += count;
          waves.back().estimated_seconds += static_cast<int>(row[3].as<long long>());
          waves.back().by_state[detail::text(row[1])] = count;
        }
        if (waves.empty()) PROV_TRY(requireCampaign(tx, campaign_id));
        return waves;
      });
}

}  // namespace inventory

#include "campaign_plan.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <set>

#include "campaign_components.hpp"
#include "campaign_views.hpp"
#include "inventory/nodes.hpp"
#include "workflows/campaign/spec.hpp"
#include "workflows/campaign/states.hpp"
#include "workflows/campaign/waves.hpp"
#include "workflows/clock.hpp"

namespace provisioner::api {
namespace {

using common::Result;
using nlohmann::json;
namespace campaign = workflows::campaign;

inventory::CampaignSelector selectorOf(const campaign::Selector& s) {
  inventory::CampaignSelector out;
  out.site = s.site;
  out.racks = s.racks;
  out.model = s.model;
  out.states = s.states;
  out.labels = s.labels;
  out.node_ids = s.nodes;
  return out;
}

std::map<std::string, std::string> labelsOf(const std::string& labels_json) {
  std::map<std::string, std::string> out;
  auto parsed = json::parse(labels_json, nullptr, false);
  if (!parsed.is_object()) return out;
  for (const auto& [key, value] : parsed.items()) {
    out[key] = value.is_string() ? value.get<std::string>() : value.dump();
  }
  return out;
}

// Explicit node ids the selector names must exist (they may still be filtered out).
Result<void> checkExplicitNodes(const ApiContext& ctx, const campaign::Selector& s,
                                const std::vector<inventory::CampaignCandidate>& found) {
  std::set<inventory::Id> selected;
  for (const auto& c : found) selected.insert(c.node_id);
  for (std::size_t i = 0; i < s.nodes.size(); ++i) {
    if (selected.count(s.nodes[i]) != 0) continue;
    auto node = inventory::getNode(*ctx.db, s.nodes[i]);
    if (node) continue;
    if (node.error().code != "node_not_found") return common::fail(std::move(node).error());
    return common::fail(common::unprocessable("unknown_node",
                                              "no node with id " + std::to_string(s.nodes[i]),
                                              "selector.nodes[" + std::to_string(i) + "]"));
  }
  return common::success();
}

CampaignTarget targetOf(const campaign::CampaignSpec& spec) {
  return {spec.kind, spec.baseline_name, spec.baseline_revision, spec.image_name,
          spec.image_version};
}

struct PlannedCampaign {
  std::vector<inventory::PlannedCampaignNode> nodes;
};

// Nodes with nothing to change (already compliant) are left out of the campaign: draining a
// node to flash nothing costs its jobs for no reason.
Result<PlannedCampaign> planNodes(const ApiContext& ctx, const campaign::CampaignSpec& spec,
                                  const CampaignTarget& target,
                                  const std::vector<inventory::CampaignCandidate>& candidates) {
  NodeUpdatePlanner planner(ctx, target);
  std::map<inventory::Id, std::pair<const inventory::CampaignCandidate*, NodeUpdatePlan>> by_id;
  std::vector<campaign::PlanNode> plan_nodes;
  for (const auto& c : candidates) {
    PROV_ASSIGN(auto update, planner.plan(c));
    if (update.components.empty()) continue;
    by_id[c.node_id] = {&c, std::move(update)};
    plan_nodes.push_back({c.node_id, c.site, c.rack, c.hardware_model, labelsOf(c.labels_json)});
  }
  if (plan_nodes.empty()) {
    return common::fail(common::unprocessable(
        "campaign_changes_nothing",
        "every node the selector picks (" + std::to_string(candidates.size()) +
            ") already runs what the target accepts",
        spec.kind == "image" ? "image" : "baseline"));
  }
  PlannedCampaign out;
  for (const auto& wave : campaign::planWaves(spec, std::move(plan_nodes))) {
    for (const auto& planned : wave.nodes) {
      const auto& [candidate, update] = by_id.at(planned.node.id);
      inventory::PlannedCampaignNode n;
      n.node_id = candidate->node_id;
      n.wave = wave.index;
      n.position = planned.position;
      n.components_json = update.components.dump(-1, ' ', false, json::error_handler_t::replace);
      n.estimated_seconds = update.estimated_seconds;
      n.site = candidate->site;
      n.rack = candidate->rack;
      n.hardware_model = candidate->hardware_model;
      n.labels_json = candidate->labels_json;
      out.nodes.push_back(std::move(n));
    }
  }
  return out;
}

// Per wave: the rounds its caps force times its slowest node's estimate
// (campaign::makespanLowerBound over that wave), and the bake after it (none after the last).
json wavesJson(const std::vector<inventory::CampaignNode>& nodes, const campaign::Caps& caps,
               int bake_seconds, std::int64_t& total_seconds) {
  std::map<int, std::vector<const inventory::CampaignNode*>> by_wave;
  for (const auto& n : nodes) by_wave[n.wave].push_back(&n);
  json out = json::array();
  total_seconds = 0;
  std::size_t index = 0;
  for (const auto& [wave, members] : by_wave) {
    campaign::Wave w;
    w.index = wave;
    std::int64_t node_seconds = 0;
    int slowest = 0;
    for (const auto* n : members) {
      w.nodes.push_back(
          {{n->node_id, n->site, n->rack, n->hardware_model, labelsOf(n->labels_json)},
           n->wave,
           n->position});
      node_seconds += n->estimated_seconds;
      slowest = std::max(slowest, n->estimated_seconds);
    }
    const auto seconds =
        static_cast<std::int64_t>(std::ceil(campaign::makespanLowerBound({w}, caps, slowest, 0)));
    const int bake = ++index < by_wave.size() ? bake_seconds : 0;
    total_seconds += seconds + bake;
    out.push_back({{"wave", wave},
                   {"nodes", members.size()},
                   {"node_seconds", node_seconds},
                   {"estimated_seconds", seconds},
                   {"bake_seconds", bake}});
  }
  return out;
}

json planNodeJson(const inventory::CampaignNode& n) {
  return {{"node_id", n.node_id},
          {"serial", n.chassis_serial},
          {"site", n.site},
          {"rack", n.rack},
          {"hardware_model", n.hardware_model},
          {"wave", n.wave},
          {"position", n.position},
          {"state", n.state},
          {"components", parsedJson(n.components_json)},
          {"estimated_seconds", n.estimated_seconds}};
}

}  // namespace

inventory::CampaignTime campaignNow(const ApiContext& ctx) {
  return ctx.clock ? ctx.clock->now() : std::chrono::system_clock::now();
}

Result<json> createPlannedCampaign(const ApiContext& ctx, const json& body,
                                   const std::string& actor) {
  PROV_ASSIGN(auto spec, campaign::parseCampaignSpec(body));
  CampaignTarget target = targetOf(spec);
  PROV_TRY(resolveCampaignTarget(ctx, target));
  spec.baseline_revision = target.baseline_revision;
  PROV_ASSIGN(auto candidates, inventory::campaignCandidates(*ctx.db, selectorOf(spec.selector)));
  PROV_TRY(checkExplicitNodes(ctx, spec.selector, candidates));
  if (candidates.empty()) {
    return common::fail(common::unprocessable("campaign_selects_nothing",
                                              "the selector picks no node", "selector"));
  }
  PROV_ASSIGN(auto planned, planNodes(ctx, spec, target, candidates));
  inventory::NewCampaign c;
  c.name = spec.name;
  c.kind = spec.kind;
  c.spec_json = campaign::toJson(spec).dump(-1, ' ', false, json::error_handler_t::replace);
  c.baseline_name = target.baseline_name;
  c.baseline_revision = target.baseline_revision;
  c.image_name = target.image_name;
  c.image_version = target.image_version;
  c.nodes = std::move(planned.nodes);
  c.created_by = actor;
  c.now = campaignNow(ctx);
  PROV_ASSIGN(auto created, inventory::createCampaign(*ctx.db, c));
  PROV_ASSIGN(auto plan, campaignPlanJson(ctx, created.id));
  json out = campaignJson(created);
  out["plan"] = std::move(plan);
  return out;
}

Result<json> campaignPlanJson(const ApiContext& ctx, inventory::Id campaign_id) {
  PROV_ASSIGN(auto c, inventory::getCampaign(*ctx.db, campaign_id));
  PROV_ASSIGN(auto nodes, inventory::campaignNodes(*ctx.db, campaign_id, {}));
  // The stored spec is canonical; should it not parse (a newer writer), plan without caps.
  campaign::Caps caps;
  int bake_seconds = 0;
  if (auto spec = campaign::parseCampaignSpec(parsedJson(c.spec_json))) {
    caps = spec->caps;
    bake_seconds = spec->bake_seconds;
  }
  std::int64_t total = 0;
  json waves = wavesJson(nodes, caps, bake_seconds, total);
  json items = json::array();
  for (const auto& n : nodes) items.push_back(planNodeJson(n));
  return json{{"campaign_id", c.id},
              {"name", c.name},
              {"kind", c.kind},
              {"state", c.state},
              {"nodes", std::move(items)},
              {"waves", std::move(waves)},
              {"estimated_duration_seconds", total}};
}

Result<std::string> actionTarget(const inventory::Campaign& c, const std::string& action) {
  auto to = campaign::transition(c.state, action);
  if (!to) {
    return common::fail(
        common::conflict("campaign_state", campaign::refusal(c.state, action), "state")
            .withDetail(c.state));
  }
  return *to;
}

}  // namespace provisioner::api

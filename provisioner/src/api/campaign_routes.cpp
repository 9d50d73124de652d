// Campaigns: create (with the plan preview), read (state, progress per wave, failures, nodes,
// timeline), and the operator's actions (start, pause, resume, cancel, rollback). Every action
// is audited by the HTTP layer and written to the campaign's timeline with the operator's name;
// start, resume and rollback make the controller run go through ApiContext::campaign_kick.
#include <nlohmann/json.hpp>

#include "campaign_plan.hpp"
#include "campaign_views.hpp"
#include "input.hpp"
#include "inventory/campaigns.hpp"
#include "provisioner/http/pagination.hpp"
#include "routes.hpp"

namespace provisioner::api {
namespace {

using common::Result;
using http::Request;
using http::Response;
using nlohmann::json;

constexpr int kMaxFailuresShown = 100;

json nextCursor(const std::optional<inventory::Id>& after) {
  return after ? json(http::encodeCursor(*after)) : json(nullptr);
}

// POST /api/v1/campaigns
Result<Response> createCampaign(const ApiContext& ctx, const Request& req) {
  PROV_ASSIGN(auto body, http::parseJsonObject(req.body));
  PROV_ASSIGN(auto created, createPlannedCampaign(ctx, body, actorOf(req)));
  return http::jsonResponse(201, created);
}

Result<Response> listCampaigns(const ApiContext& ctx, const Request& req) {
  inventory::CampaignFilter filter;
  filter.state = req.query("state").value_or("");
  if (!filter.state.empty() && !inventory::isCampaignState(filter.state)) {
    return common::fail(common::invalidArgument("invalid_field",
                                                "unknown campaign state " + filter.state, "state"));
  }
  filter.kind = req.query("kind").value_or("");
  PROV_ASSIGN(filter.page, pageRequest(req));
  PROV_ASSIGN(auto page, inventory::listCampaigns(*ctx.db, filter));
  json items = json::array();
  for (const auto& c : page.items) items.push_back(campaignJson(c));
  return http::jsonResponse(200, {{"items", items}, {"next_cursor", nextCursor(page.next_after)}});
}

// The campaign with its progress per wave, totals per state and the failed nodes' reasons.
Result<json> campaignWithProgress(const ApiContext& ctx, inventory::Id id) {
  PROV_ASSIGN(auto campaign, inventory::getCampaign(*ctx.db, id));
  PROV_ASSIGN(auto waves, inventory::campaignProgress(*ctx.db, id));
  inventory::CampaignNodeFilter failed;
  failed.states = {"failed", "rollback_failed", "rolled_back"};
  failed.limit = kMaxFailuresShown;
  PROV_ASSIGN(auto failures, inventory::campaignNodes(*ctx.db, id, failed));
  json out = campaignJson(campaign);
  out["progress"] = campaignProgressJson(waves);
  out["totals"] = campaignTotalsJson(waves);
  json failed_nodes = json::array();
  for (const auto& n : failures) {
    failed_nodes.push_back({{"node_id", n.node_id},
                            {"serial", n.chassis_serial},
                            {"wave", n.wave},
                            {"state", n.state},
                            {"reason", n.reason},
                            {"detail", parsedJson(n.detail_json)},
                            {"run_id", n.run_id ? json(*n.run_id) : json(nullptr)}});
  }
  out["failures"] = failed_nodes;
  return out;
}

Result<Response> getCampaign(const ApiContext& ctx, const Request& req) {
  PROV_ASSIGN(auto id, idParam(req, "id"));
  PROV_ASSIGN(auto out, campaignWithProgress(ctx, id));
  return http::jsonResponse(200, out);
}

Result<Response> getPlan(const ApiContext& ctx, const Request& req) {
  PROV_ASSIGN(auto id, idParam(req, "id"));
  PROV_ASSIGN(auto plan, campaignPlanJson(ctx, id));
  return http::jsonResponse(200, plan);
}

Result<std::optional<int>> waveQuery(const Request& req) {
  auto wave = req.query("wave");
  if (!wave || wave->empty()) return std::optional<int>{};
  int value = 0;
  bool digits = wave->size() <= 6;
  for (char ch : *wave) digits = digits && ch >= '0' && ch <= '9';
  if (!digits) {
    return common::fail(
        common::invalidArgument("invalid_field", "wave must be a wave number", "wave"));
  }
  for (char ch : *wave) value = value * 10 + (ch - '0');
  return std::optional<int>(value);
}

// GET /api/v1/campaigns/{id}/nodes?wave=&state=: in plan order. The cursor stands for the plan
// position after which the page goes on.
Result<Response> listCampaignNodes(const ApiContext& ctx, const Request& req) {
  PROV_ASSIGN(auto id, idParam(req, "id"));
  inventory::CampaignNodeFilter filter;
  PROV_ASSIGN(filter.wave, waveQuery(req));
  if (auto state = req.query("state"); state && !state->empty()) {
    if (!inventory::isCampaignNodeState(*state)) {
      return common::fail(common::invalidArgument(
          "invalid_field", "unknown campaign node state " + *state, "state"));
    }
    filter.states = {*state};
  }
  PROV_ASSIGN(auto page, pageRequest(req));
  filter.after_position = static_cast<int>(page.after) - 1;
  filter.limit = page.limit + 1;
  PROV_ASSIGN(auto nodes, inventory::campaignNodes(*ctx.db, id, filter));
  std::optional<inventory::Id> next;
  if (nodes.size() > static_cast<std::size_t>(page.limit)) {
    nodes.resize(static_cast<std::size_t>(page.limit));
    next = nodes.back().position + 1;
  }
  json items = json::array();
  for (const auto& n : nodes) items.push_back(campaignNodeJson(n));
  return http::jsonResponse(200, {{"items", items}, {"next_cursor", nextCursor(next)}});
}

Result<Response> listCampaignEvents(const ApiContext& ctx, const Request& req) {
  PROV_ASSIGN(auto id, idParam(req, "id"));
  PROV_ASSIGN(auto page_request, pageRequest(req));
  PROV_ASSIGN(auto page, inventory::campaignEvents(*ctx.db, id, page_request));
  json items = json::array();
  for (const auto& e : page.items) items.push_back(campaignEventJson(e));
  return http::jsonResponse(200, {{"items", items}, {"next_cursor", nextCursor(page.next_after)}});
}

// The timeline event an action writes.
std::string actionEventKind(const std::string& action) {
  if (action == "start") return "started";
  if (action == "pause") return "paused";
  if (action == "resume") return "resumed";
  if (action == "cancel") return "cancelled";
  return "rollback_requested";
}

Result<std::string> optionalReason(const Request& req) {
  PROV_ASSIGN(auto body, http::parseJsonObject(req.body.empty() ? "{}" : req.body));
  http::FieldReader in(body);
  PROV_ASSIGN(auto reason, in.optionalString("reason", 1024));
  return reason ? trimmed(*reason) : std::string();
}

// POST /api/v1/campaigns/{id}/{action}: the transition canTransition allows from the current
// state, written under the campaign's row lock (a concurrent change answers 409 naming the
// state it found). start, resume and rollback then kick the controller; when it cannot be
// kicked the transition is undone, so a campaign never looks running without a controller.
Result<Response> campaignAction(const ApiContext& ctx, const Request& req,
                                const std::string& action) {
  PROV_ASSIGN(auto id, idParam(req, "id"));
  PROV_ASSIGN(auto reason, optionalReason(req));
  PROV_ASSIGN(auto campaign, inventory::getCampaign(*ctx.db, id));
  PROV_ASSIGN(auto to, actionTarget(campaign, action));
  const bool needs_controller = action == "start" || action == "resume" || action == "rollback";
  if (needs_controller && !ctx.campaign_kick) {
    return common::fail(common::unavailable(
        "workflows_disabled", "this service runs without the workflow engine (--no-workflows)"));
  }
  inventory::CampaignTransition t;
  t.campaign_id = id;
  t.expected = {campaign.state};
  t.to = to;
  t.reason = reason.empty() && action == "pause" ? "paused by " + actorOf(req) : reason;
  t.actor = actorOf(req);
  t.event_kind = actionEventKind(action);
  if (action == "rollback") t.rollback_requested = true;
  t.now = campaignNow(ctx);
  PROV_ASSIGN(auto changed, inventory::transitionCampaign(*ctx.db, t));
  if (needs_controller) {
    auto kicked = ctx.campaign_kick(id);
    if (!kicked) {
      inventory::CampaignTransition undo;
      undo.campaign_id = id;
      undo.expected = {to};
      undo.to = campaign.state;
      undo.reason = campaign.pause_reason;
      undo.detail_json = campaign.pause_detail_json;
      undo.rollback_requested = campaign.rollback_requested;
      undo.actor = t.actor;
      undo.event_kind = "controller_unavailable";
      undo.now = campaignNow(ctx);
      (void)inventory::transitionCampaign(*ctx.db, undo);
      return common::fail(kicked.error());
    }
  } else if (ctx.campaign_kick && (campaign.state == "running" || campaign.state == "paused")) {
    // A live controller notices a pause or cancel now rather than at its next timer; if it
    // cannot be reached it still sees the new state when it next runs.
    (void)ctx.campaign_kick(id);
  }
  (void)changed;
  PROV_ASSIGN(auto out, campaignWithProgress(ctx, id));
  return http::jsonResponse(200, out);
}

template <const char* Action>
Result<Response> actionRoute(const ApiContext& ctx, const Request& req) {
  return campaignAction(ctx, req, Action);
}

constexpr char kStart[] = "start";
constexpr char kPause[] = "pause";
constexpr char kResume[] = "resume";
constexpr char kCancel[] = "cancel";
constexpr char kRollback[] = "rollback";

}  // namespace

void addCampaignRoutes(http::ApiServer& server, const ContextPtr& ctx) {
  using http::Method;
  using http::Permission;
  server.addRoute({Method::kPost, "/api/v1/campaigns", "campaigns.create",
                   Permission::kOperateNodes, withContext(ctx, createCampaign)});
  server.addRoute({Method::kGet, "/api/v1/campaigns", "campaigns.list", Permission::kReadInventory,
                   withContext(ctx, listCampaigns)});
  server.addRoute({Method::kGet, "/api/v1/campaigns/{id}", "campaigns.get",
                   Permission::kReadInventory, withContext(ctx, getCampaign)});
  server.addRoute({Method::kGet, "/api/v1/campaigns/{id}/plan", "campaigns.plan",
                   Permission::kReadInventory, withContext(ctx, getPlan)});
  server.addRoute({Method::kGet, "/api/v1/campaigns/{id}/nodes", "campaigns.nodes",
                   Permission::kReadInventory, withContext(ctx, listCampaignNodes)});
  server.addRoute({Method::kGet, "/api/v1/campaigns/{id}/events", "campaigns.events",
                   Permission::kReadInventory, withContext(ctx, listCampaignEvents)});
  server.addRoute({Method::kPost, "/api/v1/campaigns/{id}/start", "campaigns.start",
                   Permission::kOperateNodes, withContext(ctx, actionRoute<kStart>)});
  server.addRoute({Method::kPost, "/api/v1/campaigns/{id}/pause", "campaigns.pause",
                   Permission::kOperateNodes, withContext(ctx, actionRoute<kPause>)});
  server.addRoute({Method::kPost, "/api/v1/campaigns/{id}/resume", "campaigns.resume",
                   Permission::kOperateNodes, withContext(ctx, actionRoute<kResume>)});
  server.addRoute({Method::kPost, "/api/v1/campaigns/{id}/cancel", "campaigns.cancel",
                   Permission::kOperateNodes, withContext(ctx, actionRoute<kCancel>)});
  server.addRoute({Method::kPost, "/api/v1/campaigns/{id}/rollback", "campaigns.rollback",
                   Permission::kOperateNodes, withContext(ctx, actionRoute<kRollback>)});
}

}  // namespace provisioner::api

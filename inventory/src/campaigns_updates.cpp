// Campaigns changing: state transitions under a row lock, the controller's wave bookkeeping,
// node outcomes, and the timeline.
#include <algorithm>

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

std::string jsonOr(const std::string& text, const char* fallback) {
  return text.empty() ? std::string(fallback) : text;
}

std::string joined(const std::vector<std::string>& states) {
  std::string out;
  for (const auto& s : states) out += (out.empty() ? "" : " or ") + s;
  return out;
}

common::Result<void> validateTransition(const CampaignTransition& t) {
  if (!isCampaignState(t.to)) {
    return common::invalidArgument("invalid_state", "unknown campaign state " + t.to, "state");
  }
  for (const auto& s : t.expected) {
    if (!isCampaignState(s)) {
      return common::invalidArgument("invalid_state", "unknown campaign state " + s, "state");
    }
  }
  PROV_TRY(detail::requireJson(jsonOr(t.detail_json, "{}"), "detail"));
  return common::success();
}

common::Result<Campaign> readCampaign(Tx& tx, Id campaign_id) {
  auto rows = tx.exec(detail::kSelectCampaign, campaign_id);
  if (rows.empty()) return detail::campaignNotFound(campaign_id);
  return detail::campaignFromRow(rows[0]);
}

std::string transitionMessage(const std::string& from, const CampaignTransition& t) {
  std::string message = "state " + from + " -> " + t.to;
  if (t.rollback_requested.value_or(false)) message += " (rollback)";
  if (!t.reason.empty()) message += ": " + t.reason;
  return message;
}

}  // namespace

common::Result<Campaign> transitionCampaign(Database& db, const CampaignTransition& t) {
  PROV_TRY(validateTransition(t));
  const std::string detail_json = jsonOr(t.detail_json, "{}");
  const auto now = detail::campaignMicros(t.now);
  return detail::withTransaction(
      db, "transition_campaign", [&](Tx& tx) -> common::Result<Campaign> {
        // Starts are serialised with creation (same lock, taken first): no node is ever taken
        // into running by two campaigns.
        if (t.to == "running") {
          tx.exec(detail::kLockCampaignNodes, detail::kCampaignNodesLockKey);
        }
        auto locked = tx.exec(detail::kLockCampaign, t.campaign_id);
        if (locked.empty()) return detail::campaignNotFound(t.campaign_id);
        const std::string from = detail::text(locked[0][0]);
        if (std::find(t.expected.begin(), t.expected.end(), from) == t.expected.end()) {
          return common::fail(
              common::conflict("campaign_state",
                               "campaign " + std::to_string(t.campaign_id) + " is " + from +
                                   (t.expected.empty() ? "" : ", not " + joined(t.expected)),
                               "state")
                  .withDetail(from));
        }
        if (from == "draft" && t.to == "running") {
          auto busy = tx.exec(detail::kSelectCampaignNodesInOtherOpenCampaigns, t.campaign_id);
          if (!busy.empty()) return detail::nodeInOtherCampaign(busy[0]);
        }
        tx.exec(detail::kUpdateCampaignState, t.campaign_id, t.to, t.reason, detail_json,
                t.rollback_requested, now);
        if (t.to == "cancelled") tx.exec(detail::kCancelPendingCampaignNodes, t.campaign_id, now);
        json event_detail = {{"from", from}, {"to", t.to}, {"reason", t.reason}};
        event_detail["detail"] = json::parse(detail_json, nullptr, false);
        if (t.rollback_requested) event_detail["rollback_requested"] = *t.rollback_requested;
        tx.exec(detail::kInsertCampaignEvent, t.campaign_id, std::optional<Id>(), now, t.actor,
                t.event_kind.empty() ? std::string("state_changed") : t.event_kind,
                transitionMessage(from, t),
                event_detail.dump(-1, ' ', false, json::error_handler_t::replace));
        return readCampaign(tx, t.campaign_id);
      });
}

common::Result<Campaign> setCampaignWave(Database& db, Id campaign_id, int wave,
                                         CampaignTime wave_started_at,
                                         std::optional<CampaignTime> bake_until, CampaignTime now) {
  if (wave < 0) {
    return common::fail(
        common::invalidArgument("invalid_field", "wave must not be negative", "wave"));
  }
  std::optional<std::int64_t> bake;
  if (bake_until) bake = detail::campaignMicros(*bake_until);
  return detail::withTransaction(db, "set_campaign_wave", [&](Tx& tx) -> common::Result<Campaign> {
    auto updated =
        tx.exec(detail::kSetCampaignWave, campaign_id, wave,
                detail::campaignMicros(wave_started_at), bake, detail::campaignMicros(now));
    if (updated.empty()) return detail::campaignNotFound(campaign_id);
    return readCampaign(tx, campaign_id);
  });
}

common::Result<CampaignNode> updateCampaignNode(Database& db, const CampaignNodeUpdate& u) {
  if (!isCampaignNodeState(u.state)) {
    return common::fail(common::invalidArgument("invalid_state",
                                                "unknown campaign node state " + u.state, "state"));
  }
  const std::string detail_json = jsonOr(u.detail_json, "{}");
  PROV_TRY(detail::requireJson(detail_json, "detail"));
  return detail::withRead(db, "update_campaign_node", [&](Tx& tx) -> common::Result<CampaignNode> {
    auto rows = tx.exec(detail::kUpdateCampaignNode, u.campaign_id, u.node_id, u.state, u.reason,
                        detail_json, u.run_id, detail::campaignMicros(u.now), u.actor);
    if (rows.empty()) {
      return common::fail(common::notFound(
          "campaign_node_not_found", "node " + std::to_string(u.node_id) + " is not in campaign " +
                                         std::to_string(u.campaign_id)));
    }
    return detail::campaignNodeFromRow(rows[0]);
  });
}

namespace {

common::Error campaignChanged(Id campaign_id, const std::string& what) {
  return common::conflict("campaign_changed", "campaign " + std::to_string(campaign_id) +
                                                  " changed since the controller looked: " + what);
}

// Why the look an admission was decided from no longer holds; "" when it does.
std::string lookNoLongerHolds(Tx& tx, const Campaign& c, const CampaignAdmission& a) {
  if (c.state != "running") return "it is " + c.state;
  if (c.rollback_requested != a.rollback) return "its rollback was requested or withdrawn";
  if (!a.rollback && c.current_wave != a.wave) {
    return "it is in wave " + std::to_string(c.current_wave) + ", not " + std::to_string(a.wave);
  }
  std::vector<Id> running;
  for (const auto& row : tx.exec(detail::kSelectRunningCampaignNodes, a.campaign_id)) {
    running.push_back(row[0].as<Id>());
  }
  auto seen = a.running;
  std::sort(seen.begin(), seen.end());
  if (running != seen) {
    return std::to_string(running.size()) + " node(s) in flight, not the " +
           std::to_string(seen.size()) + " counted";
  }
  return "";
}

}  // namespace

common::Result<void> admitCampaignNodes(Database& db, const CampaignAdmission& a) {
  const std::string detail_json = jsonOr(a.detail_json, "{}");
  PROV_TRY(detail::requireJson(detail_json, "detail"));
  const auto now = detail::campaignMicros(a.now);
  const std::string from = a.rollback ? "succeeded" : "pending";
  return detail::withTransaction(db, "admit_campaign_nodes", [&](Tx& tx) -> common::Result<void> {
    // Every admission of this campaign waits here: the check below and the writes after it are
    // one step, whoever else is deciding.
    if (tx.exec(detail::kLockCampaign, a.campaign_id).empty()) {
      return detail::campaignNotFound(a.campaign_id);
    }
    PROV_ASSIGN(auto campaign, readCampaign(tx, a.campaign_id));
    if (auto why = lookNoLongerHolds(tx, campaign, a); !why.empty()) {
      return common::fail(campaignChanged(a.campaign_id, why));
    }
    for (Id node : a.admit) {
      auto admitted = tx.exec(detail::kAdmitCampaignNode, a.campaign_id, node, from, a.reason,
                              detail_json, now, a.actor)[0][0]
                          .as<int>();
      if (admitted != 1) {
        // Rolled back with the transaction: nothing of this admission is written.
        return common::fail(
            campaignChanged(a.campaign_id, "node " + std::to_string(node) + " is not " + from));
      }
    }
    return common::success();
  });
}

common::Result<bool> setCampaignNodeRun(Database& db, Id campaign_id, Id node_id, Id run_id) {
  return detail::withRead(db, "set_campaign_node_run", [&](Tx& tx) -> common::Result<bool> {
    return !tx.exec(detail::kSetCampaignNodeRun, campaign_id, node_id, run_id).empty();
  });
}

common::Result<CampaignEvent> appendCampaignEvent(Database& db, const CampaignEvent& e) {
  if (e.kind.empty()) {
    return common::fail(common::invalidArgument("missing_field", "kind is required", "kind"));
  }
  const std::string detail_json = jsonOr(e.detail_json, "{}");
  PROV_TRY(detail::requireJson(detail_json, "detail"));
  return detail::withRead(
      db, "append_campaign_event", [&](Tx& tx) -> common::Result<CampaignEvent> {
        auto rows =
            tx.exec(detail::kInsertCampaignEvent, e.campaign_id, e.node_id,
                    detail::campaignMicros(e.at_time), e.actor, e.kind, e.message, detail_json);
        return detail::campaignEventFromRow(rows[0]);
      });
}

common::Result<Page<CampaignEvent>> campaignEvents(Database& db, Id campaign_id,
                                                   const PageRequest& page) {
  const int limit = detail::clampLimit(page.limit);
  return detail::withRead(
      db, "campaign_events", [&](Tx& tx) -> common::Result<Page<CampaignEvent>> {
        std::vector<CampaignEvent> items;
        for (const auto& row :
             tx.exec(detail::kSelectCampaignEvents, campaign_id, page.after, limit + 1)) {
          items.push_back(detail::campaignEventFromRow(row));
        }
        if (items.empty() && tx.exec(detail::kCampaignExists, campaign_id).empty()) {
          return common::fail(detail::campaignNotFound(campaign_id));
        }
        return detail::makePage(std::move(items), limit);
      });
}

}  // namespace inventory

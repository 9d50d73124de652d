#include "campaign_rows.hpp"

#include <algorithm>

namespace inventory {

bool isCampaignState(std::string_view s) {
  return std::find(std::begin(kCampaignStates), std::end(kCampaignStates), s) !=
         std::end(kCampaignStates);
}

bool isCampaignNodeState(std::string_view s) {
  return std::find(std::begin(kCampaignNodeStates), std::end(kCampaignNodeStates), s) !=
         std::end(kCampaignNodeStates);
}

bool isFinishedCampaignNodeState(std::string_view s) {
  return isCampaignNodeState(s) && s != "pending" && s != "running";
}

}  // namespace inventory

namespace inventory::detail {
namespace {

std::optional<CampaignTime> optTime(const pqxx::field& f) {
  if (f.is_null()) return std::nullopt;
  return CampaignTime(std::chrono::microseconds(f.as<std::int64_t>()));
}

}  // namespace

std::int64_t campaignMicros(CampaignTime t) {
  return std::chrono::duration_cast<std::chrono::microseconds>(t.time_since_epoch()).count();
}

Campaign campaignFromRow(const pqxx::row& row) {
  Campaign c;
  c.id = id(row[0]);
  c.name = text(row[1]);
  c.kind = text(row[2]);
  c.state = text(row[3]);
  c.spec_json = text(row[4]);
  c.baseline_name = text(row[5]);
  c.baseline_revision = optInt(row[6]);
  c.image_name = text(row[7]);
  c.image_version = text(row[8]);
  c.pause_reason = text(row[9]);
  c.pause_detail_json = text(row[10]);
  c.rollback_requested = row[11].as<bool>();
  c.current_wave = integer(row[12]);
  c.wave_started_time = optTime(row[13]);
  c.bake_until_time = optTime(row[14]);
  c.wave_started_at = text(row[15]);
  c.bake_until = text(row[16]);
  c.created_by = text(row[17]);
  c.created_at = text(row[18]);
  c.started_at = text(row[19]);
  c.finished_at = text(row[20]);
  c.updated_at = text(row[21]);
  c.node_count = integer(row[22]);
  return c;
}

CampaignNode campaignNodeFromRow(const pqxx::row& row) {
  CampaignNode n;
  n.campaign_id = id(row[0]);
  n.node_id = id(row[1]);
  n.chassis_serial = text(row[2]);
  n.wave = integer(row[3]);
  n.position = integer(row[4]);
  n.state = text(row[5]);
  n.run_id = optId(row[6]);
  n.reason = text(row[7]);
  n.detail_json = text(row[8]);
  n.components_json = text(row[9]);
  n.estimated_seconds = integer(row[10]);
  n.site = text(row[11]);
  n.rack = text(row[12]);
  n.hardware_model = text(row[13]);
  n.labels_json = text(row[14]);
  n.started_at = text(row[15]);
  n.finished_at = text(row[16]);
  n.updated_at = text(row[17]);
  return n;
}

CampaignEvent campaignEventFromRow(const pqxx::row& row) {
  CampaignEvent e;
  e.id = id(row[0]);
  e.campaign_id = id(row[1]);
  e.node_id = optId(row[2]);
  e.at = text(row[3]);
  e.actor = text(row[4]);
  e.kind = text(row[5]);
  e.message = text(row[6]);
  e.detail_json = text(row[7]);
  return e;
}

common::Error campaignNotFound(Id id) {
  return common::notFound("campaign_not_found", "no campaign with id " + std::to_string(id));
}

common::Error nodeInOtherCampaign(const pqxx::row& row) {
  return common::conflict("node_in_other_campaign",
                          "node " + text(row[0]) + " (" + text(row[1]) + ") is in campaign " +
                              text(row[2]) + " (" + text(row[3]) + "), which is " + text(row[4]),
                          "selector");
}

}  // namespace inventory::detail

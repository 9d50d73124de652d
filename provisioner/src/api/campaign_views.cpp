#include "campaign_views.hpp"

namespace provisioner::api {
namespace {

using nlohmann::json;

json orNull(const std::string& s) {
  return s.empty() ? json(nullptr) : json(s);
}

}  // namespace

json parsedJson(const std::string& text) {
  auto parsed = json::parse(text, nullptr, false);
  return parsed.is_discarded() ? json(text) : parsed;
}

json campaignJson(const inventory::Campaign& c) {
  json baseline = nullptr;
  if (c.kind == "firmware") {
    baseline = {{"name", c.baseline_name},
                {"revision", c.baseline_revision ? json(*c.baseline_revision) : json(nullptr)}};
  }
  json image = nullptr;
  if (c.kind == "image") image = {{"name", c.image_name}, {"version", c.image_version}};
  return {{"id", c.id},
          {"name", c.name},
          {"kind", c.kind},
          {"state", c.state},
          {"baseline", baseline},
          {"image", image},
          {"spec", parsedJson(c.spec_json)},
          {"pause_reason", orNull(c.pause_reason)},
          {"pause_detail", parsedJson(c.pause_detail_json)},
          {"rollback_requested", c.rollback_requested},
          {"current_wave", c.current_wave},
          {"wave_started_at", orNull(c.wave_started_at)},
          {"bake_until", orNull(c.bake_until)},
          {"node_count", c.node_count},
          {"created_by", c.created_by},
          {"created_at", c.created_at},
          {"started_at", orNull(c.started_at)},
          {"finished_at", orNull(c.finished_at)},
          {"updated_at", c.updated_at}};
}

json campaignNodeJson(const inventory::CampaignNode& n) {
  return {{"node_id", n.node_id},
          {"serial", n.chassis_serial},
          {"wave", n.wave},
          {"position", n.position},
          {"state", n.state},
          {"run_id", n.run_id ? json(*n.run_id) : json(nullptr)},
          {"reason", orNull(n.reason)},
          {"detail", parsedJson(n.detail_json)},
          {"components", parsedJson(n.components_json)},
          {"estimated_seconds", n.estimated_seconds},
          {"site", n.site},
          {"rack", n.rack},
          {"hardware_model", n.hardware_model},
          {"labels", parsedJson(n.labels_json)},
          {"started_at", orNull(n.started_at)},
          {"finished_at", orNull(n.finished_at)},
          {"updated_at", n.updated_at}};
}

json campaignEventJson(const inventory::CampaignEvent& e) {
  return {{"id", e.id},
          {"campaign_id", e.campaign_id},
          {"node_id", e.node_id ? json(*e.node_id) : json(nullptr)},
          {"at", e.at},
          {"actor", e.actor},
          {"kind", e.kind},
          {"message", e.message},
          {"detail", parsedJson(e.detail_json)}};
}

json campaignProgressJson(const std::vector<inventory::CampaignWaveProgress>& waves) {
  json out = json::array();
  for (const auto& w : waves) {
    json by_state = json::object();
    for (const auto& [state, n] : w.by_state) by_state[state] = n;
    out.push_back({{"wave", w.wave},
                   {"total", w.total},
                   {"estimated_seconds", w.estimated_seconds},
                   {"by_state", by_state}});
  }
  return out;
}

json campaignTotalsJson(const std::vector<inventory::CampaignWaveProgress>& waves) {
  json out = json::object();
  for (const auto& w : waves) {
    for (const auto& [state, n] : w.by_state) out[state] = out.value(state, 0) + n;
  }
  return out;
}

}  // namespace provisioner::api

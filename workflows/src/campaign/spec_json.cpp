// The stored form of a campaign spec: what parseCampaignSpec reads back as the same spec.
#include <cstdio>

#include "workflows/campaign/spec.hpp"

namespace workflows::campaign {
namespace {

using nlohmann::json;

std::string clock(int minutes) {
  const int h = minutes / 60 % 100, m = minutes % 60;
  return std::string{static_cast<char>('0' + h / 10), static_cast<char>('0' + h % 10), ':',
                     static_cast<char>('0' + m / 10), static_cast<char>('0' + m % 10)};
}

json selectorJson(const Selector& s) {
  json out = json::object();
  if (s.all) out["all"] = true;
  if (!s.site.empty()) out["site"] = s.site;
  if (!s.racks.empty()) out["racks"] = s.racks;
  if (!s.model.empty()) out["model"] = s.model;
  out["states"] = s.states;
  if (!s.labels.empty()) out["labels"] = s.labels;
  if (!s.nodes.empty()) out["nodes"] = s.nodes;
  return out;
}

json windowsJson(const std::vector<Window>& windows) {
  static const char* kDays[] = {"sun", "mon", "tue", "wed", "thu", "fri", "sat"};
  json out = json::array();
  for (const auto& w : windows) {
    json days = json::array();
    for (int d : w.days) days.push_back(kDays[d]);
    out.push_back({{"days", days},
                   {"start", clock(w.start_minute)},
                   {"end", clock(w.end_minute)},
                   {"time_zone", w.time_zone}});
  }
  return out;
}

}  // namespace

json toJson(const CampaignSpec& s) {
  json out = {{"kind", s.kind}, {"selector", selectorJson(s.selector)}};
  if (!s.name.empty()) out["name"] = s.name;
  if (!s.description.empty()) out["description"] = s.description;
  if (s.kind == "firmware") {
    out["baseline"] = {{"name", s.baseline_name}};
    if (s.baseline_revision) out["baseline"]["revision"] = *s.baseline_revision;
  } else {
    out["image"] = {{"name", s.image_name}};
    if (!s.image_version.empty()) out["image"]["version"] = s.image_version;
    if (!s.image_channel.empty()) out["image"]["channel"] = s.image_channel;
  }
  out["canary"] =
      s.canary.count > 0 ? json{{"count", s.canary.count}} : json{{"percent", s.canary.percent}};
  out["bake_seconds"] = s.bake_seconds;
  json waves = json::array();
  for (const auto& w : s.waves) waves.push_back(w.rest ? json("rest") : json(w.percent));
  out["waves"] = waves;
  json caps = {{"global", s.caps.global}};
  if (s.caps.per_rack > 0) caps["per_rack"] = s.caps.per_rack;
  if (!s.caps.per_label.empty()) caps["per_label"] = s.caps.per_label;
  out["caps"] = caps;
  json budget = json::object();
  if (s.failure_budget.count) budget["count"] = *s.failure_budget.count;
  if (s.failure_budget.percent) budget["percent"] = *s.failure_budget.percent;
  out["failure_budget"] = budget;
  out["windows"] = windowsJson(s.windows);
  out["quick_check"] = s.quick_check;
  out["gate"] = {{"max_regression_percent", s.gate.max_regression_percent}};
  if (!s.gate.metrics.empty()) out["gate"]["metrics"] = s.gate.metrics;
  return out;
}

std::string toJsonText(const CampaignSpec& spec) {
  return toJson(spec).dump(-1, ' ', false, json::error_handler_t::replace);
}

common::Result<CampaignSpec> fromJson(std::string_view text) {
  json body = json::parse(text, nullptr, false);
  if (body.is_discarded()) {
    return common::fail(common::invalidArgument("invalid_campaign", "a campaign spec is not JSON"));
  }
  return parseCampaignSpec(body);
}

}  // namespace workflows::campaign

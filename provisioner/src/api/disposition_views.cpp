#include "disposition_views.hpp"

#include <algorithm>

namespace provisioner::api {

using nlohmann::json;

json toJson(const inventory::Disposition& d) {
  json out = {{"id", d.id},
              {"serial", d.serial},
              {"asset_type", d.asset_type},
              {"node_id", d.node_id ? json(*d.node_id) : json(nullptr)},
              {"disposition", d.disposition},
              {"note", d.note},
              {"recorded_by", d.recorded_by},
              {"recorded_at", d.recorded_at}};
  if (d.disposition == "rma") {
    out["rma_ticket"] = d.rma_ticket;
    out["rma_vendor"] = d.rma_vendor;
    out["shipped_on"] = d.shipped_on.empty() ? json(nullptr) : json(d.shipped_on);
    out["replacement_serial"] = d.replacement_serial;
  }
  if (d.disposition == "recycled") {
    out["recycler"] = d.recycler;
    out["recycler_certificate"] = d.recycler_certificate;
    out["weight_kg"] = d.weight_kg ? json(*d.weight_kg) : json(nullptr);
  }
  return out;
}

namespace {

json historyEntry(const inventory::Disposition& d) {
  std::string reason = d.disposition;
  if (!d.rma_ticket.empty()) reason += ": " + d.rma_ticket;
  if (!d.recycler.empty()) reason += ": " + d.recycler;
  return {{"at", d.recorded_at},
          {"event", "disposition"},
          {"node_id", d.node_id ? json(*d.node_id) : json(nullptr)},
          {"node_serial", d.asset_type == "node" ? json(d.serial) : json("")},
          {"slot", ""},
          {"from_version", ""},
          {"to_version", ""},
          {"reason", reason}};
}

}  // namespace

void addDispositions(json& asset, const inventory::DispositionHistory& history) {
  json records = json::array();
  for (const auto& d : history.records) records.push_back(toJson(d));
  json replaces = json::array();
  for (const auto& d : history.replaces) replaces.push_back(toJson(d));
  asset["disposition"] = records.empty() ? json(nullptr) : records.front();
  asset["dispositions"] = records;
  asset["replaces"] = replaces;
  if (!asset.contains("history") || !asset["history"].is_array()) asset["history"] = json::array();
  // Oldest first, like the rest of the history; ISO 8601 UTC text of one width sorts by time.
  for (auto it = history.records.rbegin(); it != history.records.rend(); ++it) {
    asset["history"].push_back(historyEntry(*it));
  }
  auto& entries = asset["history"];
  std::stable_sort(entries.begin(), entries.end(), [](const json& a, const json& b) {
    return a.value("at", "") < b.value("at", "");
  });
}

}  // namespace provisioner::api

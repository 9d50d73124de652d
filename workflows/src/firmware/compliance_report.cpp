// The fleet report: nodes with their baseline, mixed label groups, roll-ups, JSON and CSV.
#include <set>

#include <nlohmann/json.hpp>

#include "workflows/firmware/compliance.hpp"

namespace workflows::firmware {
namespace {

using nlohmann::json;

void count(Rollup& r, const NodeCompliance& n) {
  ++r.nodes;
  ++r.node_statuses[n.status];
  for (const auto& c : n.components) ++r.component_statuses[c.status];
}

template <class Key>
std::vector<Rollup> rollupsBy(const std::vector<NodeCompliance>& nodes, Key key) {
  std::map<std::string, Rollup> groups;
  for (const auto& n : nodes) {
    Rollup& r = groups[key(n).site + "\n" + key(n).rack + "\n" + key(n).model];
    if (r.nodes == 0) {
      const Rollup k = key(n);
      r.site = k.site;
      r.rack = k.rack;
      r.model = k.model;
    }
    count(r, n);
  }
  std::vector<Rollup> out;
  for (auto& [name, r] : groups) out.push_back(std::move(r));
  return out;
}

json statuses(const std::map<ComplianceStatus, int>& counts) {
  json out = json::object();
  for (ComplianceStatus s : kComplianceStatuses) {
    auto it = counts.find(s);
    out[std::string(toString(s))] = it == counts.end() ? 0 : it->second;
  }
  return out;
}

json toJson(const Rollup& r) {
  json out = {{"nodes", r.nodes},
              {"statuses", statuses(r.node_statuses)},
              {"components", statuses(r.component_statuses)}};
  if (!r.site.empty()) out["site"] = r.site;
  if (!r.rack.empty()) out["rack"] = r.rack;
  if (!r.model.empty()) out["model"] = r.model;
  return out;
}

json rollupsJson(const std::vector<Rollup>& rollups) {
  json out = json::array();
  for (const auto& r : rollups) out.push_back(toJson(r));
  return out;
}

json orNull(const std::optional<std::string>& s) {
  return s ? json(*s) : json(nullptr);
}

json toJson(const ComponentCompliance& c) {
  return {{"component", c.component},
          {"installed", c.installed},
          {"members", c.members},
          {"accepted", c.accepted},
          {"target", c.target ? json{{"package", c.target->package}, {"version", c.target->version}}
                              : json(nullptr)},
          {"status", toString(c.status)},
          {"mixed", c.mixed}};
}

json toJson(const NodeCompliance& n) {
  json components = json::array();
  for (const auto& c : n.components) components.push_back(toJson(c));
  return {{"node_id", n.node_id},
          {"chassis_serial", n.chassis_serial},
          {"model", n.model},
          {"site", n.site},
          {"rack", n.rack},
          {"state", n.state},
          {"baseline", n.baseline},
          {"revision", n.revision},
          {"observed_at", orNull(n.observed_at)},
          {"reachable", n.reachable},
          {"unreachable_reason", n.unreachable_reason},
          {"status", toString(n.status)},
          {"components", std::move(components)}};
}

std::string joined(const std::vector<std::string>& parts) {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : ";") + p;
  return out;
}

}  // namespace

std::vector<MixedGroup> findMixed(std::vector<NodeCompliance>& nodes,
                                  const std::vector<NodeFirmwareFacts>& facts,
                                  const std::vector<std::string>& labels) {
  std::map<std::int64_t, const NodeFirmwareFacts*> by_id;
  for (const auto& f : facts) by_id[f.node_id] = &f;
  // (label, value, component) -> version -> nodes
  using Key = std::tuple<std::string, std::string, std::string>;
  std::map<Key, std::map<std::string, std::vector<std::int64_t>>> groups;
  for (const auto& n : nodes) {
    auto it = by_id.find(n.node_id);
    if (it == by_id.end()) continue;
    for (const auto& label : labels) {
      auto value = it->second->labels.find(label);
      if (value == it->second->labels.end()) continue;
      for (const auto& c : n.components) {
        for (const auto& version : c.installed) {
          groups[{label, value->second, c.component}][version].push_back(n.node_id);
        }
      }
    }
  }
  std::vector<MixedGroup> out;
  std::set<std::pair<std::int64_t, std::string>> mixed_components;
  for (auto& [key, versions] : groups) {
    if (versions.size() < 2) continue;
    MixedGroup g{std::get<0>(key), std::get<1>(key), std::get<2>(key), std::move(versions)};
    for (const auto& [version, ids] : g.versions) {
      for (auto id : ids) mixed_components.insert({id, g.component});
    }
    out.push_back(std::move(g));
  }
  for (auto& n : nodes) {
    for (auto& c : n.components) c.mixed = mixed_components.count({n.node_id, c.component}) != 0;
  }
  return out;
}

ComplianceReport buildComplianceReport(
    const std::vector<NodeFirmwareFacts>& nodes,
    const std::function<std::optional<AppliedBaseline>(const std::string&)>& baseline_named,
    const std::vector<std::string>& mixed_labels) {
  ComplianceReport report;
  for (const auto& node : nodes) {
    if (node.baseline.empty()) {
      report.not_covered.push_back({node.node_id, "no baseline"});
      continue;
    }
    auto applied = baseline_named(node.baseline);
    if (!applied || applied->baseline == nullptr) {
      report.not_covered.push_back({node.node_id, "baseline " + node.baseline + " not found"});
      continue;
    }
    const BaselineModel* model = applied->baseline->model(node.model);
    if (model == nullptr) {
      report.not_covered.push_back(
          {node.node_id, "model " + node.model + " not in baseline " + node.baseline});
      continue;
    }
    report.nodes.push_back(nodeCompliance(node, *model, *applied));
  }
  report.mixed = findMixed(report.nodes, nodes, mixed_labels);
  report.by_site = rollupsBy(
      report.nodes, [](const NodeCompliance& n) { return Rollup{n.site, "", "", 0, {}, {}}; });
  report.by_rack = rollupsBy(
      report.nodes, [](const NodeCompliance& n) { return Rollup{n.site, n.rack, "", 0, {}, {}}; });
  report.by_model = rollupsBy(
      report.nodes, [](const NodeCompliance& n) { return Rollup{"", "", n.model, 0, {}, {}}; });
  for (const auto& n : report.nodes) count(report.total, n);
  return report;
}

json toJson(const ComplianceReport& report) {
  json nodes = json::array();
  for (const auto& n : report.nodes) nodes.push_back(toJson(n));
  json mixed = json::array();
  for (const auto& g : report.mixed) {
    mixed.push_back({{"label", g.label},
                     {"value", g.value},
                     {"component", g.component},
                     {"versions", g.versions}});
  }
  json not_covered = json::array();
  for (const auto& n : report.not_covered) {
    not_covered.push_back({{"node_id", n.node_id}, {"reason", n.reason}});
  }
  return {{"nodes", std::move(nodes)},
          {"mixed", std::move(mixed)},
          {"rollups",
           {{"total", toJson(report.total)},
            {"site", rollupsJson(report.by_site)},
            {"rack", rollupsJson(report.by_rack)},
            {"model", rollupsJson(report.by_model)}}},
          {"not_covered", std::move(not_covered)}};
}

std::vector<std::vector<std::string>> complianceCsvRows(const ComplianceReport& report) {
  std::vector<std::vector<std::string>> rows;
  rows.push_back({"node_id", "chassis_serial", "site", "rack", "model", "baseline", "revision",
                  "component", "installed", "accepted", "target_package", "target_version",
                  "status", "mixed", "observed_at"});
  for (const auto& n : report.nodes) {
    for (const auto& c : n.components) {
      rows.push_back({std::to_string(n.node_id), n.chassis_serial, n.site, n.rack, n.model,
                      n.baseline, std::to_string(n.revision), c.component, joined(c.installed),
                      joined(c.accepted), c.target ? c.target->package : "",
                      c.target ? c.target->version : "", std::string(toString(c.status)),
                      c.mixed ? "true" : "false", n.observed_at.value_or("")});
    }
  }
  return rows;
}

}  // namespace workflows::firmware

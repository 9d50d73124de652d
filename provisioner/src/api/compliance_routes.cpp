// Firmware compliance: GET /api/v1/firmware/compliance computes, from the observations the
// inventory holds, each node's components against its baseline (its profile's, or ?baseline=),
// the mixed label groups and the roll-ups; JSON or CSV. GET /api/v1/nodes/{id}/firmware shows
// one node's observations and their history.
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "baseline_input.hpp"
#include "firmware_views.hpp"
#include "input.hpp"
#include "inventory/node_firmware.hpp"
#include "provisioner/http/csv.hpp"
#include "routes.hpp"
#include "workflows/firmware/compliance.hpp"

namespace provisioner::api {
namespace {

namespace fw = workflows::firmware;
using common::Result;
using http::Request;
using http::Response;

Result<std::vector<std::string>> mixedLabels(const Request& req) {
  const auto text = req.query("labels");
  if (!text) return fw::kDefaultMixedLabels;
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= text->size()) {
    const std::size_t comma = std::min(text->find(',', start), text->size());
    const std::string key = trimmed(text->substr(start, comma - start));
    if (!key.empty()) out.push_back(key);
    start = comma + 1;
  }
  if (out.size() > 16) {
    return common::fail(
        common::invalidArgument("invalid_field", "labels names at most 16 label keys", "labels"));
  }
  return out;
}

fw::NodeFirmwareFacts factsOf(inventory::NodeFirmwareRow row, const std::string& baseline) {
  fw::NodeFirmwareFacts f;
  f.node_id = row.node_id;
  f.chassis_serial = std::move(row.chassis_serial);
  f.model = std::move(row.model);
  f.site = std::move(row.site);
  f.rack = std::move(row.rack);
  f.state = std::move(row.state);
  f.labels = std::move(row.labels);
  f.baseline = baseline.empty() ? row.profile_baseline : baseline;
  f.observed_at = row.firmware.observed_at;
  f.reachable = row.firmware.reachable;
  f.unreachable_reason = row.firmware.reason;
  for (auto& m : row.members) {
    f.members.push_back({m.path, m.member_id, m.name, m.software_id, m.version, m.updateable});
  }
  return f;
}

struct LoadedBaseline {
  fw::Baseline baseline;
  int revision = 0;
};

Result<std::map<std::string, LoadedBaseline>> loadBaselines(
    const ApiContext& ctx, const std::vector<fw::NodeFirmwareFacts>& nodes) {
  std::set<std::string> names;
  for (const auto& n : nodes) {
    if (!n.baseline.empty()) names.insert(n.baseline);
  }
  PROV_ASSIGN(auto revisions, inventory::latestBaselineRevisions(
                                  *ctx.db, std::vector<std::string>(names.begin(), names.end())));
  std::map<std::string, LoadedBaseline> out;
  for (const auto& r : revisions) {
    PROV_ASSIGN(auto baseline, storedBaseline(r));
    out[r.baseline] = {std::move(baseline), r.revision};
  }
  return out;
}

Response csvResponse(const fw::ComplianceReport& report) {
  http::CsvWriter csv;
  for (const auto& row : fw::complianceCsvRows(report)) csv.addRow(row);
  Response r;
  r.content_type = "text/csv; charset=utf-8";
  r.body = csv.release();
  r.headers.emplace_back("Content-Disposition", "attachment; filename=\"compliance.csv\"");
  return r;
}

Result<Response> compliance(const ApiContext& ctx, const Request& req) {
  inventory::FirmwareFleetFilter filter{req.query("site").value_or(""),
                                        req.query("rack").value_or(""),
                                        req.query("model").value_or("")};
  const std::string baseline = req.query("baseline").value_or("");
  const std::string format = req.query("format").value_or("json");
  if (format != "json" && format != "csv") {
    return common::fail(
        common::invalidArgument("invalid_field", "format must be json or csv", "format"));
  }
  PROV_ASSIGN(auto labels, mixedLabels(req));
  PROV_ASSIGN(auto rows, inventory::listFleetFirmware(*ctx.db, filter));
  std::vector<fw::NodeFirmwareFacts> nodes;
  nodes.reserve(rows.size());
  for (auto& row : rows) nodes.push_back(factsOf(std::move(row), baseline));
  PROV_ASSIGN(auto baselines, loadBaselines(ctx, nodes));
  if (!baseline.empty() && baselines.count(baseline) == 0) {
    return common::fail(common::notFound("baseline_not_found", "no baseline named " + baseline)
                            .withField("baseline"));
  }
  auto report = fw::buildComplianceReport(
      nodes,
      [&baselines](const std::string& name) -> std::optional<fw::AppliedBaseline> {
        auto it = baselines.find(name);
        if (it == baselines.end()) return std::nullopt;
        return fw::AppliedBaseline{&it->second.baseline, it->second.revision};
      },
      labels);
  if (format == "csv" || req.header("Accept").find("text/csv") != std::string::npos) {
    return csvResponse(report);
  }
  return http::jsonResponse(200, fw::toJson(report));
}

Result<Response> nodeFirmware(const ApiContext& ctx, const Request& req) {
  PROV_ASSIGN(auto id, idParam(req, "id"));
  PROV_ASSIGN(auto firmware, inventory::getNodeFirmware(*ctx.db, id));
  PROV_ASSIGN(auto history, inventory::nodeFirmwareHistory(*ctx.db, id));
  auto out = toJson(firmware);
  nlohmann::json changes = nlohmann::json::array();
  for (const auto& e : history) changes.push_back(toJson(e));
  out["history"] = std::move(changes);
  return http::jsonResponse(200, out);
}

}  // namespace

void addComplianceRoutes(http::ApiServer& server, const ContextPtr& ctx) {
  using http::Method;
  using http::Permission;
  server.addRoute({Method::kGet, "/api/v1/firmware/compliance", "firmware.compliance",
                   Permission::kReadInventory, withContext(ctx, compliance)});
  server.addRoute({Method::kGet, "/api/v1/nodes/{id}/firmware", "nodes.firmware",
                   Permission::kReadInventory, withContext(ctx, nodeFirmware)});
}

}  // namespace provisioner::api

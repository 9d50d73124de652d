// Baselines as files: POST /api/v1/baselines takes the document (YAML or JSON), shows the diff
// against the latest revision, and stores a new immutable revision only when the content
// changed (?dry_run=true stores nothing). Revisions and their history are readable.
#include <nlohmann/json.hpp>

#include "baseline_input.hpp"
#include "firmware_views.hpp"
#include "input.hpp"
#include "routes.hpp"

namespace provisioner::api {
namespace {

namespace fw = workflows::firmware;
using common::Result;
using http::Request;
using http::Response;
using nlohmann::json;

Result<bool> dryRun(const Request& req) {
  const auto value = req.query("dry_run");
  if (!value || *value == "false" || *value == "0") return false;
  if (*value == "true" || *value == "1" || value->empty()) return true;
  return common::fail(
      common::invalidArgument("invalid_field", "dry_run must be true or false", "dry_run"));
}

Result<std::optional<fw::Baseline>> previousOf(
    const std::optional<inventory::BaselineRevision>& latest) {
  if (!latest) return std::optional<fw::Baseline>();
  PROV_ASSIGN(auto baseline, storedBaseline(*latest));
  return std::optional<fw::Baseline>(std::move(baseline));
}

// POST /api/v1/baselines[?dry_run=true]
Result<Response> applyBaseline(const ApiContext& ctx, const Request& req) {
  PROV_ASSIGN(const bool dry_run, dryRun(req));
  PROV_ASSIGN(auto baseline, readBaseline(*ctx.db, req.body));
  PROV_ASSIGN(auto latest, inventory::latestBaselineRevision(*ctx.db, baseline.name));
  PROV_ASSIGN(auto previous, previousOf(latest));
  const auto diff = fw::diffBaselines(previous, baseline);
  const bool unchanged = previous && *previous == baseline;
  const int latest_number = latest ? latest->revision : 0;
  json out = {{"baseline", baseline.name},
              {"dry_run", dry_run},
              {"previous_revision", latest ? json(latest_number) : json(nullptr)},
              {"diff", fw::toJson(diff)}};
  if (dry_run) {
    out["status"] = unchanged ? "unchanged" : "would_create";
    out["revision"] = unchanged ? latest_number : latest_number + 1;
    return http::jsonResponse(200, out);
  }
  PROV_ASSIGN(auto applied,
              inventory::applyBaselineRevision(*ctx.db, baseline.name, fw::canonicalText(baseline),
                                               latest_number, actorOf(req)));
  out["status"] = applied.created ? "created" : "unchanged";
  out["revision"] = applied.revision.revision;
  out["digest"] = applied.revision.digest;
  return http::jsonResponse(applied.created ? 201 : 200, out);
}

Result<Response> listBaselines(const ApiContext& ctx, const Request& req) {
  PROV_ASSIGN(auto page, pageRequest(req));
  PROV_ASSIGN(auto baselines, inventory::listBaselines(*ctx.db, page));
  return http::jsonResponse(200, pageJson(baselines));
}

Result<Response> getBaseline(const ApiContext& ctx, const Request& req) {
  const std::string& name = req.pathParam("name");
  PROV_ASSIGN(auto latest, inventory::latestBaselineRevision(*ctx.db, name));
  if (!latest) {
    return common::fail(common::notFound("baseline_not_found", "no baseline named " + name));
  }
  return http::jsonResponse(200, toJson(*latest));
}

Result<int> revisionParam(const Request& req) {
  const std::string& text = req.pathParam("revision");
  int n = 0;
  for (char c : text) {
    if (c < '0' || c > '9' || n > 100000000) {
      n = 0;
      break;
    }
    n = n * 10 + (c - '0');
  }
  if (n <= 0) {
    return common::fail(common::invalidArgument("invalid_field",
                                                "revision must be a positive integer", "revision"));
  }
  return n;
}

Result<Response> getRevision(const ApiContext& ctx, const Request& req) {
  PROV_ASSIGN(auto n, revisionParam(req));
  PROV_ASSIGN(auto revision, inventory::getBaselineRevision(*ctx.db, req.pathParam("name"), n));
  return http::jsonResponse(200, toJson(revision));
}

// Oldest first, each with what changed from the one before.
Result<Response> listRevisions(const ApiContext& ctx, const Request& req) {
  PROV_ASSIGN(auto revisions, inventory::listBaselineRevisions(*ctx.db, req.pathParam("name")));
  json items = json::array();
  std::optional<fw::Baseline> before;
  for (const auto& r : revisions) {
    PROV_ASSIGN(auto baseline, storedBaseline(r));
    json item = toJson(r);
    item.erase("content");
    item["diff"] = fw::toJson(fw::diffBaselines(before, baseline));
    items.push_back(std::move(item));
    before = std::move(baseline);
  }
  return http::jsonResponse(200, {{"items", std::move(items)}, {"next_cursor", nullptr}});
}

}  // namespace

void addBaselineRoutes(http::ApiServer& server, const ContextPtr& ctx) {
  using http::Method;
  using http::Permission;
  http::RouteSpec apply{Method::kPost, "/api/v1/baselines", "baselines.apply",
                        Permission::kWriteImages, withContext(ctx, applyBaseline)};
  apply.accepts = {"application/json", "application/yaml", "application/x-yaml",
                   "text/yaml",        "text/x-yaml",      "text/plain"};
  server.addRoute(std::move(apply));
  server.addRoute({Method::kGet, "/api/v1/baselines", "baselines.list", Permission::kReadInventory,
                   withContext(ctx, listBaselines)});
  server.addRoute({Method::kGet, "/api/v1/baselines/{name}", "baselines.get",
                   Permission::kReadInventory, withContext(ctx, getBaseline)});
  server.addRoute({Method::kGet, "/api/v1/baselines/{name}/revisions", "baselines.revisions",
                   Permission::kReadInventory, withContext(ctx, listRevisions)});
  server.addRoute({Method::kGet, "/api/v1/baselines/{name}/revisions/{revision}",
                   "baselines.revision", Permission::kReadInventory,
                   withContext(ctx, getRevision)});
}

}  // namespace provisioner::api

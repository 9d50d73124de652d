// GPU fleet health (docs/health.md): the agent posts one batch per node; operators read a GPU's
// history (at the resolution its range calls for) and roll-ups by node, rack, row or site.
#include <chrono>
#include <cmath>
#include <limits>

#include <nlohmann/json.hpp>

#include "agent_auth.hpp"
#include "input.hpp"
#include "inventory/gpu_health.hpp"
#include "inventory/health/health_class.hpp"
#include "inventory/health/rules.hpp"
#include "inventory/health_sweep.hpp"
#include "json_views.hpp"
#include "provisioner/http/pagination.hpp"
#include "resident_tasks_json.hpp"
#include "routes.hpp"
#include "workflows/clock.hpp"

namespace provisioner::api {
namespace {

namespace h = inventory::health;
using common::Result;
using http::FieldReader;
using http::Request;
using http::Response;
using nlohmann::json;

constexpr std::int64_t kMaxCounter = std::numeric_limits<std::int64_t>::max();

common::Error invalidField(const std::string& field, const std::string& message) {
  return common::invalidArgument("invalid_field", message, field);
}

Result<h::Seconds> requiredTime(const FieldReader& in, std::string_view name) {
  PROV_ASSIGN(auto text, in.requiredString(name, 64));
  auto t = h::parseUtc(text);
  if (!t) return invalidField(in.pathOf(name), "expected an ISO-8601 UTC time");
  return *t;
}

// FieldReader has no floating-point accessor: numbers are read here, never thrown on.
Result<std::optional<double>> optionalNumber(const FieldReader& in, std::string_view name) {
  if (!in.has(name)) return std::optional<double>();
  const auto& v = in.json()[std::string(name)];
  if (!v.is_number()) return invalidField(in.pathOf(name), "expected a number");
  return std::optional<double>(v.get<double>());
}

Result<std::optional<bool>> flag(const FieldReader& in, std::string_view name) {
  return in.optionalBool(name);
}

Result<void> readCounters(const FieldReader& in, h::GpuSample& g) {
  for (std::size_t i = 0; i < h::kCounterCount; ++i) {
    PROV_ASSIGN(auto v, in.optionalInt(h::nameOf(h::counterAt(i)), 0, kMaxCounter));
    if (v) g.counters[i] = static_cast<std::uint64_t>(*v);
  }
  return common::success();
}

Result<std::vector<h::XidOccurrence>> readXids(const FieldReader& in, h::Seconds sampled_at) {
  PROV_ASSIGN(auto items, in.arrayOfObjects("xids"));
  std::vector<h::XidOccurrence> out;
  for (const auto& x : items) {
    PROV_ASSIGN(auto xid, x.requiredInt("xid", 1, 100000));
    h::Seconds at = sampled_at;
    if (x.has("at")) {
      PROV_ASSIGN(at, requiredTime(x, "at"));
    }
    out.push_back({static_cast<int>(xid), at});
  }
  return out;
}

Result<h::GpuSample> readGpu(const FieldReader& in, h::Seconds sampled_at) {
  h::GpuSample g;
  PROV_ASSIGN(g.serial, in.requiredString("serial", 128));
  PROV_ASSIGN(auto epoch, in.optionalString("driver_epoch", 128));
  g.driver_epoch = epoch.value_or("");
  PROV_ASSIGN(g.temperature_c, optionalNumber(in, "temperature_c"));
  PROV_ASSIGN(g.power_w, optionalNumber(in, "power_w"));
  PROV_ASSIGN(g.sm_clock_mhz, in.optionalInt("sm_clock_mhz", 0, 10000));
  PROV_ASSIGN(g.hbm_temperature_c, optionalNumber(in, "hbm_temperature_c"));
  PROV_ASSIGN(g.mem_clock_mhz, in.optionalInt("mem_clock_mhz", 0, 20000));
  PROV_ASSIGN(g.gpu_utilization_pct, in.optionalInt("gpu_utilization_pct", 0, 100));
  PROV_ASSIGN(auto reasons, in.optionalInt("clock_event_reasons", 0, kMaxCounter));
  g.clock_event_reasons = static_cast<std::uint64_t>(reasons.value_or(0));
  PROV_TRY(readCounters(in, g));
  PROV_ASSIGN(auto pending, flag(in, "remap_pending"));
  PROV_ASSIGN(auto failure, flag(in, "remap_failure"));
  g.remap_pending = pending.value_or(false);
  g.remap_failure = failure.value_or(false);
  PROV_ASSIGN(g.xids, readXids(in, sampled_at));
  return g;
}

Result<h::NodeBatch> readBatch(const Request& req, const h::IngestLimits& limits) {
  PROV_ASSIGN(auto body, http::parseJsonObject(req.body));
  FieldReader in(body);
  h::NodeBatch batch;
  PROV_ASSIGN(batch.sampled_at, requiredTime(in, "sampled_at"));
  PROV_ASSIGN(auto gpus, in.arrayOfObjects("gpus"));
  // Checked before reading each GPU, so an oversized batch costs little.
  if (gpus.size() > limits.max_gpus) {
    return invalidField("gpus", "at most " + std::to_string(limits.max_gpus) + " GPUs per batch");
  }
  for (const auto& g : gpus) {
    PROV_ASSIGN(auto gpu, readGpu(g, batch.sampled_at));
    batch.gpus.push_back(std::move(gpu));
  }
  return batch;
}

Result<Response> postHealth(const ApiContext& ctx, const Request& req) {
  PROV_ASSIGN(auto node_id, idParam(req, "node_id"));
  // The token first: an unauthenticated caller learns nothing about the batch format.
  PROV_ASSIGN(auto reporter, authorizeHealthReporter(*ctx.db, req, node_id));
  const inventory::HealthSettings settings;
  PROV_ASSIGN(auto batch, readBatch(req, settings.limits));
  PROV_ASSIGN(auto stored,
              inventory::ingestHealthBatch(*ctx.db, node_id, batch, healthTime(ctx), settings));
  PROV_ASSIGN(auto tasks, residentTasksFor(ctx, reporter));
  return http::jsonResponse(200, {{"node_id", node_id},
                                  {"samples", stored.samples},
                                  {"duplicates", stored.duplicates},
                                  {"events", stored.events},
                                  {"counter_resets", stored.resets},
                                  // The agent rotates its credential when told (docs/health.md).
                                  {"rotate_credential", reporter.rotate_requested},
                                  // GPU resets and the like for the resident agent.
                                  {"tasks", tasks}});
}

struct Range {
  h::Seconds from;
  h::Seconds to;
};

// ?from=&to= (ISO-8601 UTC); defaults: the last 24 hours. At most ten years.
Result<Range> rangeOf(const ApiContext& ctx, const Request& req) {
  Range r;
  r.to = healthTime(ctx);
  if (auto to = req.query("to")) {
    auto t = h::parseUtc(*to);
    if (!t) return invalidField("to", "expected an ISO-8601 UTC time");
    r.to = *t;
  }
  r.from = r.to - std::chrono::hours{24};
  if (auto from = req.query("from")) {
    auto t = h::parseUtc(*from);
    if (!t) return invalidField("from", "expected an ISO-8601 UTC time");
    r.from = *t;
  }
  if (r.from >= r.to) return invalidField("from", "from must be before to");
  if (r.to - r.from > std::chrono::days{3660}) {
    return invalidField("from", "a range spans at most ten years");
  }
  return r;
}

// The resolution a history or roll-up answers with: the one asked for (`resolution`), when it
// can answer the range, else the finest that can.
Result<h::Resolution> resolutionOf(const ApiContext& ctx, const Request& req, const Range& range) {
  const inventory::HealthSettings settings;
  const auto now = healthTime(ctx);
  auto asked = req.query("resolution");
  if (!asked) return h::chooseResolution(range.from, range.to, now, settings.retention);
  auto named = h::resolutionNamed(*asked);
  if (!named) return invalidField("resolution", "resolution must be raw, hourly or daily");
  if (!h::resolutionCovers(*named, range.from, range.to, now, settings.retention)) {
    const auto& r = settings.retention;
    const bool raw = *named == h::Resolution::kRaw;
    return invalidField("resolution",
                        std::string("resolution ") + *asked + " answers ranges of at most " +
                            std::to_string((raw ? r.raw_max_span : r.hourly_max_span).count()) +
                            " hours within the last " +
                            std::to_string(raw ? r.raw_days : r.hourly_days) + " days; ask for " +
                            (raw ? "hourly or daily" : "daily") + " or a shorter range");
  }
  return *named;
}

json statJson(const h::Stat& s) {
  if (s.empty()) return nullptr;
  return {{"min", s.min}, {"avg", *s.avg()}, {"max", s.max}, {"n", s.count}};
}

json pointJson(const inventory::HealthPoint& p) {
  json out = {{"at", p.at},
              {"node_id", p.node_id},
              {"samples", p.samples},
              {"temperature_c", statJson(p.temperature_c)},
              {"power_w", statJson(p.power_w)},
              {"sm_clock_mhz", statJson(p.sm_clock_mhz)},
              {"throttled_samples", p.throttled_samples},
              {"clock_event_reasons", p.clock_event_reasons},
              {"ecc_corrected", p.ecc_corrected},
              {"ecc_uncorrected", p.ecc_uncorrected},
              {"xids", p.xids},
              {"health_class", h::toString(static_cast<h::HealthClass>(p.worst_class))}};
  if (!p.source.empty()) out["source"] = p.source;
  out["hbm_temperature_c"] = statJson(p.hbm_temperature_c);
  out["mem_clock_mhz"] = statJson(p.mem_clock_mhz);
  out["gpu_utilization_pct"] = statJson(p.gpu_utilization_pct);
  out["pcie_replays"] = p.pcie_replays;
  if (p.pcie_replay_errors) out["pcie_replay_errors"] = *p.pcie_replay_errors;
  return out;
}

json eventJson(const inventory::GpuHealthEvent& e) {
  json detail = json::parse(e.detail_json, nullptr, false);
  return {{"id", e.id},
          {"kind", e.kind},
          {"at", e.at},
          {"node_id", e.node_id ? json(*e.node_id) : json(nullptr)},
          {"detail", detail.is_discarded() ? json::object() : detail}};
}

json burnInJson(const inventory::BurnInResultRecord& r) {
  return {{"task_id", r.task_id},
          {"node_id", r.node_id},
          {"batch", r.batch},
          {"test", r.test},
          {"value", r.value},
          {"unit", r.unit},
          {"passed", r.passed},
          {"reason", r.reason},
          {"measured_at", r.measured_at},
          {"robust_z", r.robust_z ? json(*r.robust_z) : json(nullptr)}};
}

json countersJson(const std::optional<inventory::GpuCounterTotals>& c) {
  if (!c) return nullptr;
  return {{"node_id", c->node_id ? json(*c->node_id) : json(nullptr)},
          {"last_sample", c->last_sample},
          {"driver_epoch", c->driver_epoch},
          {"resets", c->resets},
          {"lifetime", c->lifetime},
          {"last_raw", c->last_raw}};
}

json historyJson(const inventory::GpuHealthHistory& hist, const Range& r) {
  json out = {{"serial", hist.serial},
              {"from", h::formatUtc(r.from)},
              {"to", h::formatUtc(r.to)},
              {"resolution", h::toString(hist.resolution)},
              {"points", json::array()},
              {"events", json::array()},
              {"xid_bursts", json::array()},
              {"burn_ins", json::array()},
              {"counters", countersJson(hist.counters)}};
  for (const auto& p : hist.points) out["points"].push_back(pointJson(p));
  for (const auto& e : hist.events) out["events"].push_back(eventJson(e));
  for (const auto& b : hist.xid_bursts) {
    out["xid_bursts"].push_back({{"id", b.id},
                                 {"xid", b.xid},
                                 {"node_id", b.node_id},
                                 {"first_at", b.first_at},
                                 {"last_at", b.last_at},
                                 {"count", b.count}});
  }
  for (const auto& b : hist.burn_ins) out["burn_ins"].push_back(burnInJson(b));
  return out;
}

Result<Response> gpuHealth(const ApiContext& ctx, const Request& req) {
  const std::string serial = trimmed(req.pathParam("serial"));
  if (serial.empty() || serial.size() > 128) {
    return invalidField("serial", "serial must be 1 to 128 characters");
  }
  PROV_ASSIGN(auto range, rangeOf(ctx, req));
  PROV_ASSIGN(auto resolution, resolutionOf(ctx, req, range));
  PROV_ASSIGN(auto history,
              inventory::gpuHealthHistory(*ctx.db, serial, range.from, range.to, resolution));
  return http::jsonResponse(200, historyJson(history, range));
}

Result<inventory::HealthGroupBy> groupBy(const Request& req) {
  const std::string by = req.query("by").value_or("rack");
  if (by == "node") return inventory::HealthGroupBy::kNode;
  if (by == "rack") return inventory::HealthGroupBy::kRack;
  if (by == "row") return inventory::HealthGroupBy::kRow;
  if (by == "site") return inventory::HealthGroupBy::kSite;
  return invalidField("by", "by must be node, rack, row or site");
}

json groupJson(const inventory::HealthGroupRollup& g) {
  return {
      {"site", g.site},
      {"row", g.row},
      {"rack", g.rack},
      {"node_id", g.node_id ? json(*g.node_id) : json(nullptr)},
      {"gpus", g.gpus},
      {"samples", g.samples},
      {"temperature_c", statJson(g.temperature_c)},
      {"power_w", statJson(g.power_w)},
      {"sm_clock_mhz", statJson(g.sm_clock_mhz)},
      {"throttled_samples", g.throttled_samples},
      {"ecc_corrected", g.ecc_corrected},
      {"ecc_uncorrected", g.ecc_uncorrected},
      {"xids", g.xids},
      {"hbm_temperature_c", statJson(g.hbm_temperature_c)},
      {"gpu_utilization_pct", statJson(g.gpu_utilization_pct)},
      {"pcie_replays", g.pcie_replays},
      {"health_classes",
       {{"healthy", g.healthy_gpus}, {"warning", g.warning_gpus}, {"critical", g.critical_gpus}}}};
}

Result<Response> healthRollups(const ApiContext& ctx, const Request& req) {
  PROV_ASSIGN(auto by, groupBy(req));
  PROV_ASSIGN(auto range, rangeOf(ctx, req));
  PROV_ASSIGN(auto resolution, resolutionOf(ctx, req, range));
  PROV_ASSIGN(auto groups, inventory::healthRollups(*ctx.db, by, range.from, range.to, resolution));
  json out = {{"by", req.query("by").value_or("rack")},
              {"from", h::formatUtc(range.from)},
              {"to", h::formatUtc(range.to)},
              {"resolution", h::toString(resolution)},
              {"groups", json::array()}};
  for (const auto& g : groups) out["groups"].push_back(groupJson(g));
  return http::jsonResponse(200, out);
}

json sweepJson(const inventory::HealthSweepRecord& s) {
  return {{"node_id", s.node_id},           {"node_state", s.node_state},
          {"attempted_at", s.attempted_at}, {"swept_at", textOrNull(s.swept_at)},
          {"reachable", s.reachable},       {"gpus", s.gpus},
          {"error", textOrNull(s.error)},   {"last_reading", textOrNull(s.last_reading)}};
}

// GET /api/v1/health/sweeps?reachable=: the nodes the out-of-band sweep has tried.
Result<Response> healthSweeps(const ApiContext& ctx, const Request& req) {
  inventory::HealthSweepFilter filter;
  if (auto reachable = req.query("reachable")) {
    if (*reachable != "true" && *reachable != "false") {
      return invalidField("reachable", "reachable must be true or false");
    }
    filter.reachable = *reachable == "true";
  }
  PROV_ASSIGN(filter.page, pageRequest(req));
  const int limit = filter.page.limit;
  filter.page.limit = limit + 1;
  PROV_ASSIGN(auto sweeps, inventory::listHealthSweeps(*ctx.db, filter));
  auto nodeId = [](const inventory::HealthSweepRecord& s) { return s.node_id; };
  return http::jsonResponse(200, http::pageJson(std::move(sweeps), limit, nodeId, sweepJson));
}

// A rule's thresholds: the ones its kind reads (docs/health.md, "Rules and their sources").
json ruleParameters(const h::Rule& r) {
  json p = json::object();
  auto put = [&p](const char* name, double v) {
    if (v != 0) p[name] = v;
  };
  if (!r.xids.empty()) p["xids"] = r.xids;
  if (r.kind == h::RuleKind::kXid || r.kind == h::RuleKind::kRemapGrowth ||
      r.kind == h::RuleKind::kXidRecurring || r.kind == h::RuleKind::kRepeatOffender ||
      r.kind == h::RuleKind::kReplayRate) {
    p["window_hours"] = r.window.count();
  }
  if (r.kind == h::RuleKind::kPeer || r.kind == h::RuleKind::kPeerDrift ||
      r.kind == h::RuleKind::kLearnedNormal) {
    p["metric"] = h::toString(r.metric);
    p["direction"] = h::toString(r.direction);
  }
  put("cusum_k", r.cusum_k);
  put("cusum_h", r.cusum_h);
  put("min_days", r.min_days);
  put("z", r.z);
  put("min_deviation", r.min_deviation);
  put("min_relative", r.min_relative);
  put("min_peers", r.min_peers);
  put("min_samples", static_cast<double>(r.min_samples));
  put("min_load_fraction", r.min_load_fraction);
  put("min_baseline_days", r.min_baseline_days);
  put("max_baseline_days", r.max_baseline_days);
  put("day_cap", r.day_cap);
  put("trend_days", r.trend_days);
  put("trend_z", r.trend_z);
  put("rate_floor", r.rate_floor);
  put("rate_ratio", r.rate_ratio);
  put("rate_increase", r.rate_increase);
  put("idle_below", r.idle_below);
  put("busy_above", r.busy_above);
  put("max_per_minute", r.max_per_minute);
  if (r.load_adjust) p["load_adjust"] = true;
  return p;
}

// GET /api/v1/health/rules: the policy the flag evaluation runs, rule by rule.
Result<Response> healthRules(const ApiContext&, const Request&) {
  json rules = json::array();
  for (const auto& r : h::defaultPolicy()) {
    rules.push_back({{"id", r.id},
                     {"kind", h::toString(r.kind)},
                     {"severity", h::toString(r.severity)},
                     {"action", h::toString(r.action)},
                     {"source", r.source},
                     {"parameters", ruleParameters(r)}});
  }
  return http::jsonResponse(200, {{"rules", rules}});
}

}  // namespace

void addHealthRoutes(http::ApiServer& server, const ContextPtr& ctx) {
  using http::Method;
  using http::Permission;
  // Public at the API-token layer: the handler checks the node-scoped agent session token.
  server.addRoute({Method::kPost, "/api/v1/agent/nodes/{node_id}/health", "agent.health",
                   Permission::kPublic, withContext(ctx, postHealth)});
  server.addRoute({Method::kGet, "/api/v1/gpus/{serial}/health", "gpus.health",
                   Permission::kReadInventory, withContext(ctx, gpuHealth)});
  server.addRoute({Method::kGet, "/api/v1/health/rollups", "health.rollups",
                   Permission::kReadInventory, withContext(ctx, healthRollups)});
  server.addRoute({Method::kGet, "/api/v1/health/sweeps", "health.sweeps",
                   Permission::kReadInventory, withContext(ctx, healthSweeps)});
  server.addRoute({Method::kGet, "/api/v1/health/rules", "health.rules", Permission::kReadInventory,
                   withContext(ctx, healthRules)});
}

}  // namespace provisioner::api

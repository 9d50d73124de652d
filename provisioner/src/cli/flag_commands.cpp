// health flags: GPU health flags per GPU, per node or fleet-wide; acknowledge and clear them.
// health sweeps: the silent nodes the out-of-band sweep read through their BMCs.
// health rules: the policy the flag evaluation runs.
// health gpu: one GPU's health history, point by point.
#include <nlohmann/json.hpp>

#include "provisioner/cli/command.hpp"
#include "provisioner/cli/json_fields.hpp"
#include "provisioner/cli/paging.hpp"
#include "provisioner/cli/table.hpp"
#include "provisioner/cli/url.hpp"

namespace provisioner::cli {
namespace {

using common::Result;
using nlohmann::json;

Result<void> listFlags(CommandContext& ctx) {
  const auto gpu = ctx.invocation.option("gpu");
  const auto node = ctx.invocation.option("node");
  if (gpu && node) return common::fail(commandUsageError(ctx, "give --gpu or --node, not both"));
  std::string path = "/api/v1/health/flags";
  if (gpu) path = "/api/v1/gpus/" + *gpu + "/flags";
  if (node) path = "/api/v1/nodes/" + *node + "/flags";
  Query query;
  for (const char* name : {"state", "rule", "severity"}) {
    if (auto v = ctx.invocation.option(name)) query.emplace_back(name, *v);
  }
  auto listing = fetchListing(ctx, path, query);
  PROV_TRY(listing);
  if (ctx.json()) {
    printListingJson(ctx.out, *listing);
    return common::success();
  }
  Table table({"ID", "GPU", "RULE", "SEVERITY", "ACTION", "STATE", "RAISED", "REASON"});
  for (const auto& f : listing->items) {
    table.addRow({text(f, "id"), text(f, "serial"), text(f, "rule"), text(f, "severity"),
                  text(f, "action"), text(f, "state"), text(f, "raised_at"), text(f, "reason")});
  }
  table.render(ctx.out);
  noteMorePages(ctx, *listing);
  return common::success();
}

std::string orDash(const json& object, const char* key) {
  auto value = text(object, key);
  return value.empty() ? "-" : value;
}

// health sweeps: the nodes the out-of-band sweep has read (or tried to) through their BMCs.
Result<void> listSweeps(CommandContext& ctx) {
  Query query;
  if (ctx.invocation.has("unreachable")) query.emplace_back("reachable", "false");
  auto listing = fetchListing(ctx, "/api/v1/health/sweeps", query);
  PROV_TRY(listing);
  if (ctx.json()) {
    printListingJson(ctx.out, *listing);
    return common::success();
  }
  Table table({"NODE", "STATE", "LAST READING", "TRIED", "READ", "BMC", "GPUS", "ERROR"});
  for (const auto& s : listing->items) {
    const bool reachable = s.value("reachable", false);
    table.addRow({text(s, "node_id"), text(s, "node_state"), orDash(s, "last_reading"),
                  text(s, "attempted_at"), orDash(s, "swept_at"),
                  reachable ? "answered" : "unreachable", text(s, "gpus"), orDash(s, "error")});
  }
  table.render(ctx.out);
  noteMorePages(ctx, *listing);
  return common::success();
}

// "k=v, k=v" of a rule's thresholds, as the API gives them.
std::string parametersText(const json& parameters) {
  std::string out;
  for (const auto& [key, value] : parameters.items()) {
    out += (out.empty() ? "" : ", ") + key + "=" +
           (value.is_string() ? value.get<std::string>() : value.dump());
  }
  return out;
}

// health rules: each rule's id, kind, severity, action and thresholds.
Result<void> listRules(CommandContext& ctx) {
  PROV_ASSIGN(auto reply, ctx.api->getJson("/api/v1/health/rules"));
  if (ctx.json()) {
    printRawJson(ctx.out, reply);
    return common::success();
  }
  Table table({"RULE", "KIND", "SEVERITY", "ACTION", "PARAMETERS"});
  for (const auto& r : reply.json.value("rules", json::array())) {
    table.addRow({text(r, "id"), text(r, "kind"), text(r, "severity"), text(r, "action"),
                  parametersText(r.value("parameters", json::object()))});
  }
  table.render(ctx.out);
  return common::success();
}

// "avg/max" of a statistic the API gives as {"min", "avg", "max", "n"}; "-" when none.
std::string avgMax(const json& point, const char* key, int decimals) {
  const json& stat = objectField(point, key);
  if (stat.empty()) return "-";
  return fixed(stat, "avg", decimals) + "/" + fixed(stat, "max", decimals);
}

// health gpu SERIAL: the GPU's readings or roll-ups over a range, one row a point.
Result<void> gpuHealth(CommandContext& ctx) {
  const std::string& serial = ctx.invocation.positionals.at(0);
  Query query;
  for (const char* name : {"from", "to", "resolution"}) {
    if (auto v = ctx.invocation.option(name)) query.emplace_back(name, *v);
  }
  PROV_ASSIGN(auto reply,
              ctx.api->getJson("/api/v1/gpus/" + percentEncode(serial) + "/health", query));
  if (ctx.json()) {
    printRawJson(ctx.out, reply);
    return common::success();
  }
  ctx.out << "GPU " << serial << ", " << text(reply.json, "from") << " to "
          << text(reply.json, "to") << ", " << text(reply.json, "resolution") << " points\n";
  Table table({"AT", "NODE", "READINGS", "TEMP C", "HBM C", "POWER W", "SM MHZ", "UTIL %",
               "ECC NEW", "XIDS", "REPLAYS", "CLASS"});
  for (const auto& p : arrayField(reply.json, "points")) {
    table.addRow({text(p, "at"), text(p, "node_id"), text(p, "samples"),
                  avgMax(p, "temperature_c", 1), avgMax(p, "hbm_temperature_c", 1),
                  avgMax(p, "power_w", 0), avgMax(p, "sm_clock_mhz", 0),
                  avgMax(p, "gpu_utilization_pct", 0), text(p, "ecc_corrected"), text(p, "xids"),
                  text(p, "pcie_replays"), text(p, "health_class")});
  }
  table.render(ctx.out);
  return common::success();
}

Result<void> flagAction(CommandContext& ctx, const std::string& action) {
  PROV_ASSIGN(auto id, idArgument(ctx, 0));
  json body = json::object();
  if (auto note = ctx.invocation.option("note")) body["note"] = *note;
  PROV_ASSIGN(auto reply, ctx.api->postJson("/api/v1/health/flags/" + id + "/" + action, body));
  return printed(ctx, reply,
                 "flag " + id + " " + text(reply.json, "state") + " by " +
                     text(reply.json, action == "clear" ? "cleared_by" : "acknowledged_by"));
}

Result<void> acknowledgeFlag(CommandContext& ctx) {
  return flagAction(ctx, "acknowledge");
}
Result<void> clearFlag(CommandContext& ctx) {
  return flagAction(ctx, "clear");
}

}  // namespace

std::vector<Command> flagCommands() {
  return {
      {{.group = "health",
        .name = "flags",
        .options = {{.name = "gpu", .metavar = "SERIAL"},
                    {.name = "node", .metavar = "ID"},
                    {.name = "state", .metavar = "open|acknowledged|cleared"},
                    {.name = "rule", .metavar = "RULE"},
                    {.name = "severity", .metavar = "info|warning|critical"},
                    {.name = "limit", .metavar = "N"},
                    {.name = "all", .takesValue = false}},
        .summary = "list GPU health flags (fleet-wide, or of one GPU or node)"},
       listFlags},
      {{.group = "health",
        .name = "sweeps",
        .options = {{.name = "unreachable", .takesValue = false},
                    {.name = "limit", .metavar = "N"},
                    {.name = "all", .takesValue = false}},
        .summary = "list the nodes the out-of-band sweep read through their BMCs (silent nodes)"},
       listSweeps},
      {{.group = "health",
        .name = "gpu",
        .positionals = {"SERIAL"},
        .options = {{.name = "from", .metavar = "TIME"},
                    {.name = "to", .metavar = "TIME"},
                    {.name = "resolution", .metavar = "raw|hourly|daily"}},
        .summary = "a GPU's health history (last 24 h unless --from/--to), one row a point"},
       gpuHealth},
      {{.group = "health",
        .name = "rules",
        .summary = "the rules the flag evaluation runs: severity, action and thresholds"},
       listRules},
      {{.group = "health",
        .name = "acknowledge",
        .positionals = {"FLAG_ID"},
        .options = {{.name = "note", .metavar = "TEXT"}},
        .summary = "acknowledge an open health flag (operator)"},
       acknowledgeFlag},
      {{.group = "health",
        .name = "clear",
        .positionals = {"FLAG_ID"},
        .options = {{.name = "note", .metavar = "TEXT"}},
        .summary = "clear a health flag (operator)"},
       clearFlag},
  };
}

}  // namespace provisioner::cli

// profile set | list, node boot-macs | burn-in | tasks, task show | cancel, gpu history: hardware
// profiles and GPU burn-in through the API.
#include <fstream>
#include <sstream>

#include "provisioner/cli/command.hpp"
#include "provisioner/cli/json_fields.hpp"
#include "provisioner/cli/table.hpp"

namespace provisioner::cli {
namespace {

using common::Result;
using nlohmann::json;

Result<json> readJsonValue(CommandContext& ctx, const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return common::fail(commandUsageError(ctx, "cannot read " + path));
  std::ostringstream text;
  text << in.rdbuf();
  auto doc = json::parse(text.str(), nullptr, false);
  if (doc.is_discarded()) return common::fail(commandUsageError(ctx, path + " is not JSON"));
  return doc;
}

Result<json> readJsonFile(CommandContext& ctx, const std::string& path) {
  PROV_ASSIGN(auto doc, readJsonValue(ctx, path));
  if (!doc.is_object()) return common::fail(commandUsageError(ctx, path + " is not a JSON object"));
  return doc;
}

// Measurements to one decimal place, z-scores to two: enough to read, short enough to align.
Result<void> setProfile(CommandContext& ctx) {
  const std::string& name = ctx.invocation.positionals.at(0);
  json body = {{"model", ctx.invocation.option("model").value_or("")},
               {"channel", ctx.invocation.option("channel").value_or("")}};
  if (auto gpus = ctx.invocation.option("expected-gpus")) {
    if (!isDecimalId(*gpus)) return common::fail(commandUsageError(ctx, "--expected-gpus N"));
    body["expected_gpus"] = std::stoi(*gpus);
  }
  if (auto plan = ctx.invocation.option("plan")) {
    PROV_ASSIGN(body["burn_in_plan"], readJsonFile(ctx, *plan));
  }
  if (auto bios = ctx.invocation.option("bios")) {
    PROV_ASSIGN(body["bios_settings"], readJsonFile(ctx, *bios));
  }
  if (auto firmware = ctx.invocation.option("min-firmware")) {
    PROV_ASSIGN(auto entries, readJsonValue(ctx, *firmware));
    if (!entries.is_array()) {
      return common::fail(commandUsageError(ctx, *firmware + " is not a JSON array"));
    }
    body["min_firmware"] = std::move(entries);
  }
  if (auto gpu_model = ctx.invocation.option("gpu-model")) body["gpu_model"] = *gpu_model;
  if (auto baseline = ctx.invocation.option("baseline")) body["baseline"] = *baseline;
  PROV_ASSIGN(auto reply, ctx.api->putJson("/api/v1/hardware-profiles/" + name, body));
  return printed(ctx, reply,
                 "Profile " + sanitize(name) + ": model '" + sanitize(text(reply.json, "model")) +
                     "' boots channel " + sanitize(text(reply.json, "channel")) + ".");
}

Result<void> listProfiles(CommandContext& ctx) {
  PROV_ASSIGN(auto reply, ctx.api->getJson("/api/v1/hardware-profiles"));
  if (ctx.json()) {
    printRawJson(ctx.out, reply);
    return common::success();
  }
  Table table({"NAME", "MODEL", "CHANNEL", "EXPECTED GPUS", "BASELINE", "UPDATED"});
  for (const auto& p : arrayField(reply.json, "items")) {
    table.addRow({text(p, "name"), text(p, "model"), text(p, "channel"), text(p, "expected_gpus"),
                  text(p, "baseline"), text(p, "updated_at")});
  }
  table.render(ctx.out);
  return common::success();
}

Result<void> addBootMacs(CommandContext& ctx) {
  PROV_ASSIGN(auto id, idArgument(ctx, 0));
  const auto& p = ctx.invocation.positionals;
  json body = {{"macs", json(std::vector<std::string>(p.begin() + 1, p.end()))}};
  PROV_ASSIGN(auto reply, ctx.api->postJson("/api/v1/nodes/" + id + "/boot-macs", body));
  std::string macs;
  for (const auto& m : arrayField(reply.json, "macs")) macs += " " + scalarText(m);
  return printed(ctx, reply, "Node " + id + " boots with:" + sanitize(macs));
}

Result<void> startBurnIn(CommandContext& ctx) {
  PROV_ASSIGN(auto id, idArgument(ctx, 0));
  json body = json::object();
  if (auto batch = ctx.invocation.option("batch")) body["batch"] = *batch;
  if (auto plan = ctx.invocation.option("plan")) {
    PROV_ASSIGN(body["plan"], readJsonFile(ctx, *plan));
  }
  PROV_ASSIGN(auto reply, ctx.api->postJson("/api/v1/nodes/" + id + "/burn-in", body));
  return printed(ctx, reply,
                 "Task " + text(reply.json, "id") + ": node " + id +
                     " will network-boot and burn in (batch " +
                     sanitize(text(reply.json, "batch")) + ").");
}

void renderTaskSummary(std::ostream& out, const json& task) {
  renderFields(out, {{"Task", text(task, "id")},
                     {"Node", text(task, "node_id")},
                     {"Kind", text(task, "kind")},
                     {"State", text(task, "state")},
                     {"Batch", text(task, "batch")},
                     {"Created", text(task, "created_at")},
                     {"Finished", text(task, "finished_at")}});
}

Result<void> showTask(CommandContext& ctx) {
  PROV_ASSIGN(auto id, idArgument(ctx, 0));
  PROV_ASSIGN(auto reply, ctx.api->getJson("/api/v1/tasks/" + id));
  if (ctx.json()) {
    printRawJson(ctx.out, reply);
    return common::success();
  }
  renderTaskSummary(ctx.out, reply.json);
  const auto& verdict = objectField(reply.json, "verdict");
  ctx.out << "\nFailures\n";
  for (const auto& f : arrayField(verdict, "failures")) {
    ctx.out << "  " << sanitize(text(f, "message")) << "\n";
  }
  Table results({"GPU SERIAL", "TEST", "VALUE", "UNIT", "NOMINAL", "BATCH MEDIAN", "Z", "OK"});
  for (const auto& r : arrayField(reply.json, "results")) {
    results.addRow({text(r, "gpu_serial"), text(r, "test"), fixed(r, "value", 1), text(r, "unit"),
                    fixed(r, "nominal", 1), fixed(r, "batch_median", 1), fixed(r, "robust_z", 2),
                    text(r, "passed")});
  }
  ctx.out << "\nResults (" << results.rowCount() << ")\n";
  if (results.rowCount() > 0) results.render(ctx.out);
  return common::success();
}

Result<void> cancelTask(CommandContext& ctx) {
  PROV_ASSIGN(auto id, idArgument(ctx, 0));
  json body = json::object();
  if (auto reason = ctx.invocation.option("reason")) body["reason"] = *reason;
  PROV_ASSIGN(auto reply, ctx.api->postJson("/api/v1/tasks/" + id + "/cancel", body));
  return printed(ctx, reply, "Task " + id + " is " + sanitize(text(reply.json, "state")) + ".");
}

Result<void> gpuHistory(CommandContext& ctx) {
  const std::string& serial = ctx.invocation.positionals.at(0);
  PROV_ASSIGN(auto reply, ctx.api->getJson("/api/v1/gpus/" + serial + "/burn-in"));
  if (ctx.json()) {
    printRawJson(ctx.out, reply);
    return common::success();
  }
  Table table({"MEASURED", "TASK", "TEST", "VALUE", "UNIT", "NOMINAL", "Z", "OK", "REASON"});
  for (const auto& r : arrayField(reply.json, "items")) {
    table.addRow({text(r, "measured_at"), text(r, "task_id"), text(r, "test"), fixed(r, "value", 1),
                  text(r, "unit"), fixed(r, "nominal", 1), fixed(r, "robust_z", 2),
                  text(r, "passed"), text(r, "reason")});
  }
  table.render(ctx.out);
  return common::success();
}

}  // namespace

std::vector<Command> burnInCommands() {
  return {
      {{.group = "profile",
        .name = "set",
        .positionals = {"NAME"},
        .options = {{.name = "model", .metavar = "MODEL", .required = true},
                    {.name = "channel", .metavar = "CHANNEL", .required = true},
                    {.name = "expected-gpus", .metavar = "N"},
                    {.name = "plan", .metavar = "PLAN.json"},
                    {.name = "bios", .metavar = "BIOS.json"},
                    {.name = "min-firmware", .metavar = "FIRMWARE.json"},
                    {.name = "gpu-model", .metavar = "MODEL"},
                    {.name = "baseline", .metavar = "NAME"}},
        .summary = "create or replace a hardware profile (model -> channel, burn-in plan, BIOS,"
                   " minimum firmware, GPU model, firmware baseline)"},
       setProfile},
      {{.group = "profile", .name = "list", .summary = "list hardware profiles"}, listProfiles},
      {{.group = "nodes",
        .name = "boot-macs",
        .positionals = {"ID", "MAC"},
        .summary = "record the MACs a node network-boots with",
        .acceptsExtra = true},
       addBootMacs},
      {{.group = "nodes",
        .name = "burn-in",
        .positionals = {"ID"},
        .options = {{.name = "batch", .metavar = "NAME"}, {.name = "plan", .metavar = "PLAN.json"}},
        .summary = "network-boot a node into its profile's image and burn in its GPUs"},
       startBurnIn},
      {{.group = "task",
        .name = "show",
        .positionals = {"ID"},
        .summary = "show a task, its verdict and per-GPU results"},
       showTask},
      {{.group = "task",
        .name = "cancel",
        .positionals = {"ID"},
        .options = {{.name = "reason", .metavar = "TEXT"}},
        .summary = "cancel an open task (its agent tokens stop working)"},
       cancelTask},
      {{.group = "gpu",
        .name = "history",
        .positionals = {"SERIAL"},
        .summary = "burn-in results of one GPU serial, newest first"},
       gpuHistory},
  };
}

}  // namespace provisioner::cli

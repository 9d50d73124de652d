// nodes timeline | retry | quarantine | release | rerun, runs list | show | summary: the node
// lifecycle workflow as operators see and steer it.
#include "provisioner/cli/command.hpp"
#include "provisioner/cli/json_fields.hpp"
#include "provisioner/cli/paging.hpp"
#include "provisioner/cli/table.hpp"

namespace provisioner::cli {
namespace {

using common::Result;
using nlohmann::json;

std::string nodePath(const std::string& id, const char* action) {
  return "/api/v1/nodes/" + id + "/" + action;
}

void renderEvents(std::ostream& out, const json& events) {
  Table table({"AT", "STEP", "KIND", "ACTOR", "MS", "MESSAGE"});
  for (const auto& e : events) {
    std::string ms = text(e, "duration_ms");
    if (auto dot = ms.find('.'); dot != std::string::npos) ms.resize(dot);
    table.addRow({text(e, "at"), text(e, "step"), text(e, "kind"), text(e, "actor"), ms,
                  text(e, "message")});
  }
  table.render(out);
}

void renderRun(std::ostream& out, const json& run) {
  renderFields(out, {{"Run", text(run, "id")},
                     {"Workflow", text(run, "kind")},
                     {"Subject", text(run, "subject")},
                     {"State", text(run, "state")},
                     {"Step", text(run, "step")},
                     {"Attempt", text(run, "attempt")},
                     {"Waiting for", text(run, "waiting_for")},
                     {"Node", text(run, "node_id")},
                     {"Reason", text(run, "reason")},
                     {"Leased by", text(run, "leased_by")},
                     {"Started", text(run, "created_at")},
                     {"Finished", text(run, "finished_at")}});
}

Result<void> showTimeline(CommandContext& ctx) {
  PROV_ASSIGN(auto id, idArgument(ctx, 0));
  PROV_ASSIGN(auto reply, ctx.api->getJson(nodePath(id, "timeline")));
  if (ctx.json()) {
    printRawJson(ctx.out, reply);
    return common::success();
  }
  if (auto run = reply.json.find("run"); run != reply.json.end() && run->is_object()) {
    renderRun(ctx.out, *run);
    ctx.out << "\n";
  }
  renderEvents(ctx.out, arrayField(reply.json, "events"));
  return common::success();
}

Result<void> retryNode(CommandContext& ctx) {
  PROV_ASSIGN(auto id, idArgument(ctx, 0));
  json body = json::object();
  if (auto step = ctx.invocation.option("step")) body["step"] = *step;
  PROV_ASSIGN(auto reply, ctx.api->postJson(nodePath(id, "retry"), body));
  return printed(ctx, reply,
                 "Node " + id + ": run " + text(reply.json, "id") + " retries step " +
                     sanitize(text(reply.json, "step")) + ".");
}

Result<void> quarantineNode(CommandContext& ctx) {
  PROV_ASSIGN(auto id, idArgument(ctx, 0));
  json body = {{"reason", ctx.invocation.option("reason").value_or("")}};
  PROV_ASSIGN(auto reply, ctx.api->postJson(nodePath(id, "quarantine"), body));
  return printed(ctx, reply, "Node " + id + " is quarantined.");
}

Result<void> releaseNode(CommandContext& ctx) {
  PROV_ASSIGN(auto id, idArgument(ctx, 0));
  json body = {{"reason", ctx.invocation.option("reason").value_or("")}};
  PROV_ASSIGN(auto reply, ctx.api->postJson(nodePath(id, "release"), body));
  return printed(ctx, reply, "Node " + id + " is " + sanitize(text(reply.json, "state")) + ".");
}

Result<void> rerunNode(CommandContext& ctx) {
  PROV_ASSIGN(auto id, idArgument(ctx, 0));
  json body = json::object();
  if (auto step = ctx.invocation.option("from-step")) body["from_step"] = *step;
  PROV_ASSIGN(auto reply, ctx.api->postJson(nodePath(id, "rerun"), body));
  return printed(ctx, reply,
                 "Node " + id + ": run " + text(reply.json, "id") + " starts at " +
                     sanitize(text(reply.json, "step")) + ".");
}

Result<void> listRuns(CommandContext& ctx) {
  Query query;
  for (const char* filter : {"kind", "state", "step"}) {
    if (auto value = ctx.invocation.option(filter)) query.emplace_back(filter, *value);
  }
  auto listing = fetchListing(ctx, "/api/v1/workflows/runs", query);
  PROV_TRY(listing);
  if (ctx.json()) {
    printListingJson(ctx.out, *listing);
    return common::success();
  }
  Table table({"RUN", "WORKFLOW", "SUBJECT", "NODE", "STATE", "STEP", "WAITING FOR", "REASON"});
  for (const auto& r : listing->items) {
    table.addRow({text(r, "id"), text(r, "kind"), text(r, "subject"), text(r, "node_id"),
                  text(r, "state"), text(r, "step"), text(r, "waiting_for"), text(r, "reason")});
  }
  table.render(ctx.out);
  noteMorePages(ctx, *listing);
  return common::success();
}

Result<void> showRun(CommandContext& ctx) {
  PROV_ASSIGN(auto id, idArgument(ctx, 0));
  PROV_ASSIGN(auto reply, ctx.api->getJson("/api/v1/workflows/runs/" + id));
  if (ctx.json()) {
    printRawJson(ctx.out, reply);
    return common::success();
  }
  renderRun(ctx.out, reply.json);
  ctx.out << "\n";
  renderEvents(ctx.out, arrayField(reply.json, "events"));
  return common::success();
}

Result<void> runSummary(CommandContext& ctx) {
  Query query;
  if (auto kind = ctx.invocation.option("kind")) query.emplace_back("kind", *kind);
  PROV_ASSIGN(auto reply, ctx.api->getJson("/api/v1/workflows/summary", query));
  if (ctx.json()) {
    printRawJson(ctx.out, reply);
    return common::success();
  }
  Table table({"STEP OR STATE", "RUNS"});
  if (auto counts = reply.json.find("counts"); counts != reply.json.end() && counts->is_object()) {
    for (const auto& [key, value] : counts->items()) table.addRow({key, scalarText(value)});
  }
  table.render(ctx.out);
  return common::success();
}

Command nodeAction(const char* name, Handler handler, std::vector<OptionSpec> options,
                   const char* summary) {
  return {{.group = "nodes",
           .name = name,
           .positionals = {"ID"},
           .options = std::move(options),
           .summary = summary},
          handler};
}

}  // namespace

std::vector<Command> lifecycleCommands() {
  return {
      nodeAction("timeline", showTimeline, {}, "the node's lifecycle run and every step it took"),
      nodeAction("retry", retryNode, {{.name = "step", .metavar = "STEP"}},
                 "retry the failed step of the node's lifecycle (or --step)"),
      nodeAction("quarantine", quarantineNode,
                 {{.name = "reason", .metavar = "TEXT", .required = true}},
                 "stop the node's lifecycle and quarantine it"),
      nodeAction("release", releaseNode, {{.name = "reason", .metavar = "TEXT", .required = true}},
                 "release a quarantined node to ready"),
      nodeAction("rerun", rerunNode, {{.name = "from-step", .metavar = "STEP"}},
                 "run the node's lifecycle again (from the start or --from-step)"),
      {{.group = "runs",
        .name = "list",
        .options = {{.name = "kind", .metavar = "K"},
                    {.name = "state", .metavar = "S"},
                    {.name = "step", .metavar = "STEP"},
                    {.name = "limit", .metavar = "N"},
                    {.name = "all", .takesValue = false}},
        .summary = "workflow runs, filtered"},
       listRuns},
      {{.group = "runs",
        .name = "show",
        .positionals = {"ID"},
        .summary = "a run and its timeline"},
       showRun},
      {{.group = "runs",
        .name = "summary",
        .options = {{.name = "kind", .metavar = "K"}},
        .summary = "open runs per step and finished runs per state"},
       runSummary},
  };
}

}  // namespace provisioner::cli

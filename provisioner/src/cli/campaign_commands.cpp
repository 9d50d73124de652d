// campaign create | list | plan | start | pause | resume | cancel | rollback | show | watch:
// firmware and image campaigns through the API. Rendering is in campaign_render.cpp.
#include <chrono>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

#include <unistd.h>

#include "campaign_render.hpp"
#include "file_digest.hpp"
#include "provisioner/cli/command.hpp"
#include "provisioner/cli/json_fields.hpp"
#include "provisioner/cli/paging.hpp"
#include "provisioner/cli/table.hpp"

namespace provisioner::cli {
namespace {

using common::Result;
using nlohmann::json;

constexpr const char* kCampaignsPath = "/api/v1/campaigns";
constexpr int kDefaultWatchSeconds = 5;
constexpr int kMaxWatchSeconds = 3600;

std::string campaignPath(const std::string& id, const std::string& tail = "") {
  return std::string(kCampaignsPath) + "/" + id + (tail.empty() ? "" : "/" + tail);
}

// A campaign file: JSON (an object).
Result<json> readCampaignFile(CommandContext& ctx, const std::string& path) {
  PROV_ASSIGN(auto content, readFile(path));
  json parsed = json::parse(content, nullptr, false);
  if (parsed.is_discarded() || !parsed.is_object()) {
    return common::fail(
        commandUsageError(ctx, path + " is not a JSON object (a campaign file is JSON)"));
  }
  return parsed;
}

Result<void> createCampaign(CommandContext& ctx) {
  const std::string& file = ctx.invocation.positionals.at(0);
  PROV_ASSIGN(auto body, readCampaignFile(ctx, file));
  PROV_ASSIGN(auto reply, ctx.api->postJson(kCampaignsPath, body));
  if (ctx.json()) {
    printRawJson(ctx.out, reply);
    return common::success();
  }
  const json& plan = objectField(reply.json, "plan");
  ctx.out << "Campaign " << text(reply.json, "id") << " (" << sanitize(text(reply.json, "name"))
          << ") created as " << text(reply.json, "state") << ": "
          << arrayField(plan, "nodes").size() << " nodes in " << arrayField(plan, "waves").size()
          << " waves, estimated " << formatDuration(plan.value("estimated_duration_seconds", 0))
          << ".\n";
  ctx.out << "Review it with `provisionerctl campaign plan " << text(reply.json, "id")
          << "`, then `provisionerctl campaign start " << text(reply.json, "id") << "`.\n";
  return common::success();
}

Result<void> listCampaigns(CommandContext& ctx) {
  Query query;
  for (const char* filter : {"state", "kind"}) {
    if (auto value = ctx.invocation.option(filter)) query.emplace_back(filter, *value);
  }
  auto listing = fetchListing(ctx, kCampaignsPath, query);
  PROV_TRY(listing);
  if (ctx.json()) {
    printListingJson(ctx.out, *listing);
    return common::success();
  }
  Table table({"ID", "NAME", "KIND", "STATE", "NODES", "WAVE", "CREATED", "REASON"});
  for (const auto& c : listing->items) {
    table.addRow({text(c, "id"), text(c, "name"), text(c, "kind"), text(c, "state"),
                  text(c, "node_count"), text(c, "current_wave"), text(c, "created_at"),
                  text(c, "pause_reason")});
  }
  table.render(ctx.out);
  noteMorePages(ctx, *listing);
  return common::success();
}

Result<void> showPlan(CommandContext& ctx) {
  PROV_ASSIGN(auto id, idArgument(ctx, 0));
  PROV_ASSIGN(auto reply, ctx.api->getJson(campaignPath(id, "plan")));
  if (ctx.json()) {
    printRawJson(ctx.out, reply);
    return common::success();
  }
  renderPlan(ctx.out, reply.json);
  return common::success();
}

Result<void> showCampaign(CommandContext& ctx) {
  PROV_ASSIGN(auto id, idArgument(ctx, 0));
  PROV_ASSIGN(auto reply, ctx.api->getJson(campaignPath(id)));
  if (ctx.json()) {
    printRawJson(ctx.out, reply);
    return common::success();
  }
  renderCampaign(ctx.out, reply.json);
  return common::success();
}

// start, pause, resume, cancel, rollback: POST /campaigns/{id}/<action> {"reason"}.
Result<void> campaignAction(CommandContext& ctx) {
  PROV_ASSIGN(auto id, idArgument(ctx, 0));
  json body = json::object();
  if (auto reason = ctx.invocation.option("reason")) body["reason"] = *reason;
  PROV_ASSIGN(auto reply, ctx.api->postJson(campaignPath(id, ctx.spec.name), body));
  std::string line = "Campaign " + id + " is " + sanitize(text(reply.json, "state"));
  if (reply.json.value("rollback_requested", false)) line += ", rolling back";
  return printed(ctx, reply, line + ".");
}

Result<int> watchInterval(CommandContext& ctx) {
  auto value = ctx.invocation.option("interval");
  if (!value) return kDefaultWatchSeconds;
  if (!isDecimalId(*value) || value->size() > 4 || std::stoi(*value) < 1 ||
      std::stoi(*value) > kMaxWatchSeconds) {
    return common::fail(commandUsageError(
        ctx, "--interval must be seconds between 1 and " + std::to_string(kMaxWatchSeconds)));
  }
  return std::stoi(*value);
}

bool watchEnds(const std::string& state) {
  return state == "completed" || state == "cancelled" || state == "paused";
}

// Polls GET /campaigns/{id} and redraws the waves until the campaign completes, is cancelled or
// pauses (--once: one frame). A terminal gets the screen cleared between frames.
Result<void> watchCampaign(CommandContext& ctx) {
  PROV_ASSIGN(auto id, idArgument(ctx, 0));
  PROV_ASSIGN(auto interval, watchInterval(ctx));
  const bool once = ctx.invocation.has("once");
  const bool terminal = &ctx.out == &std::cout && isatty(STDOUT_FILENO) == 1;
  for (bool first = true;; first = false) {
    PROV_ASSIGN(auto reply, ctx.api->getJson(campaignPath(id)));
    const std::string state = text(reply.json, "state");
    if (ctx.json()) {
      ctx.out << reply.json.dump(-1, ' ', false, json::error_handler_t::replace) << "\n";
    } else {
      if (terminal) ctx.out << "\x1b[H\x1b[2J";
      if (!first && !terminal) ctx.out << "\n";
      renderWatchFrame(ctx.out, reply.json);
    }
    ctx.out.flush();
    if (once) return common::success();
    if (watchEnds(state)) {
      if (state == "completed") return common::success();
      std::string why = text(reply.json, "pause_reason");
      return common::fail(common::conflict(
          "campaign_" + state,
          "campaign " + id + " is " + state + (why.empty() ? "" : ": " + sanitize(why))));
    }
    std::this_thread::sleep_for(std::chrono::seconds(interval));
  }
}

Command action(const char* name, const char* summary) {
  return {{.group = "campaign",
           .name = name,
           .positionals = {"ID"},
           .options = {{.name = "reason", .metavar = "TEXT"}},
           .summary = summary},
          campaignAction};
}

}  // namespace

std::vector<Command> campaignCommands() {
  return {
      {{.group = "campaign",
        .name = "create",
        .positionals = {"FILE"},
        .summary = "create a draft campaign from a JSON file and show its plan's size"},
       createCampaign},
      {{.group = "campaign",
        .name = "list",
        .options = {{.name = "state", .metavar = "S"},
                    {.name = "kind", .metavar = "K"},
                    {.name = "limit", .metavar = "N"},
                    {.name = "all", .takesValue = false}},
        .summary = "campaigns, filtered"},
       listCampaigns},
      {{.group = "campaign",
        .name = "plan",
        .positionals = {"ID"},
        .summary = "every node's wave, components from -> to and the estimated duration"},
       showPlan},
      action("start", "start a draft campaign"),
      action("pause", "pause a running campaign (running nodes finish)"),
      action("resume", "resume a paused campaign"),
      action("cancel", "cancel a campaign (nodes not started are cancelled)"),
      action("rollback", "take every node the campaign changed back"),
      {{.group = "campaign",
        .name = "show",
        .positionals = {"ID"},
        .summary = "a campaign's state, pause reason, progress per wave and failures"},
       showCampaign},
      {{.group = "campaign",
        .name = "watch",
        .positionals = {"ID"},
        .options = {{.name = "interval", .metavar = "SECONDS"},
                    {.name = "once", .takesValue = false}},
        .summary = "live progress per wave until the campaign completes, pauses or is cancelled"},
       watchCampaign},
  };
}

}  // namespace provisioner::cli

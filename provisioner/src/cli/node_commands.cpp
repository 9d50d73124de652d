// nodes list | show | export: the fleet as the inventory sees it; nodes credentials |
// rotate-credential | revoke-credential: the resident agent's monitor credential (docs/health.md);
// nodes resident-tasks: the GPU resets and burn-in reruns the node's resident agent was asked for.
#include "provisioner/cli/command.hpp"
#include "provisioner/cli/json_fields.hpp"
#include "provisioner/cli/paging.hpp"
#include "provisioner/cli/table.hpp"

namespace provisioner::cli {
namespace {

using common::Result;
using nlohmann::json;

constexpr const char* kNodesPath = "/api/v1/nodes";
// Flag name -> query parameter; the same filters serve list and export.
constexpr const char* kFilters[] = {"rack", "state", "model", "site", "firmware"};

Query filterQuery(const Invocation& invocation) {
  Query query;
  for (const char* filter : kFilters) {
    if (auto value = invocation.option(filter)) query.emplace_back(filter, *value);
  }
  return query;
}

std::vector<OptionSpec> filterOptions() {
  return {{.name = "rack", .metavar = "R"},
          {.name = "state", .metavar = "S"},
          {.name = "model", .metavar = "M"},
          {.name = "site", .metavar = "S"},
          {.name = "firmware", .metavar = "V"}};
}

Result<void> listNodes(CommandContext& ctx) {
  auto listing = fetchListing(ctx, kNodesPath, filterQuery(ctx.invocation));
  PROV_TRY(listing);
  if (ctx.json()) {
    printListingJson(ctx.out, *listing);
    return common::success();
  }
  Table table(
      {"ID", "STATE", "MODEL", "SERIAL", "BMC ADDRESS", "SITE", "RACK", "U", "GPUS", "REASON"});
  for (const auto& n : listing->items) {
    table.addRow({text(n, "id"), text(n, "state"), text(n, "hardware_model"),
                  text(n, "chassis_serial"), text(n, "bmc_address"), text(n, "site"),
                  text(n, "rack"), text(n, "u_position"), text(n, "gpu_count"),
                  text(n, "state_reason")});
  }
  table.render(ctx.out);
  noteMorePages(ctx, *listing);
  return common::success();
}

void renderNode(std::ostream& out, const json& node) {
  renderFields(out, {{"ID", text(node, "id")},
                     {"State", text(node, "state")},
                     {"Reason", text(node, "state_reason")},
                     {"Model", text(node, "hardware_model")},
                     {"Chassis serial", text(node, "chassis_serial")},
                     {"BMC address", text(node, "bmc_address")},
                     {"BMC MAC", text(node, "bmc_mac")},
                     {"Site", text(node, "site")},
                     {"Rack", text(node, "rack")},
                     {"U position", text(node, "u_position")},
                     {"GPUs", text(node, "gpu_count")},
                     {"Created", text(node, "created_at")},
                     {"Updated", text(node, "updated_at")}});
  Table components({"ID", "KIND", "SLOT", "MANUFACTURER", "MODEL", "SERIAL", "FIRMWARE"});
  for (const auto& c : arrayField(node, "components")) {
    components.addRow({text(c, "id"), text(c, "kind"), text(c, "slot"), text(c, "manufacturer"),
                       text(c, "model"), text(c, "serial"), text(c, "firmware_version")});
  }
  out << "\nComponents (" << components.rowCount() << ")\n";
  if (components.rowCount() > 0) components.render(out);
  Table timeline({"AT", "ACTOR", "KIND", "MESSAGE"});
  for (const auto& e : arrayField(node, "timeline")) {
    timeline.addRow({text(e, "at"), text(e, "actor"), text(e, "kind"), text(e, "message")});
  }
  out << "\nTimeline (" << timeline.rowCount() << ")\n";
  if (timeline.rowCount() > 0) timeline.render(out);
}

Result<void> showNode(CommandContext& ctx) {
  const std::string& id = ctx.invocation.positionals.at(0);
  if (!isDecimalId(id))
    return common::fail(commandUsageError(ctx, "ID must be a number, got '" + id + "'"));
  auto reply = ctx.api->getJson(std::string(kNodesPath) + "/" + id);
  PROV_TRY(reply);
  if (ctx.json()) {
    printRawJson(ctx.out, *reply);
  } else {
    renderNode(ctx.out, reply->json);
  }
  return common::success();
}

// The server renders the CSV (every matching node, no paging); we pass it through untouched.
Result<void> exportNodes(CommandContext& ctx) {
  Query query = filterQuery(ctx.invocation);
  query.emplace_back("format", "csv");
  auto reply = ctx.api->getText(kNodesPath, query, "text/csv");
  PROV_TRY(reply);
  ctx.out << reply->body;
  return common::success();
}

Result<void> listCredentials(CommandContext& ctx) {
  PROV_ASSIGN(auto id, idArgument(ctx, 0));
  PROV_ASSIGN(auto reply, ctx.api->getJson(std::string(kNodesPath) + "/" + id + "/credentials"));
  if (ctx.json()) {
    printRawJson(ctx.out, reply);
    return common::success();
  }
  Table table({"ID", "LIVE", "ISSUED", "FIRST USED", "ROTATE ASKED", "REVOKED", "WHY"});
  for (const auto& c : reply.json.value("items", json::array())) {
    table.addRow({text(c, "id"), c.value("live", false) ? "yes" : "no", text(c, "issued_at"),
                  text(c, "first_used_at"), text(c, "rotate_requested_at"), text(c, "revoked_at"),
                  text(c, "revoked_reason")});
  }
  table.render(ctx.out);
  return common::success();
}

Result<void> listResidentTasks(CommandContext& ctx) {
  PROV_ASSIGN(auto id, idArgument(ctx, 0));
  PROV_ASSIGN(auto reply, ctx.api->getJson(std::string(kNodesPath) + "/" + id + "/resident-tasks"));
  if (ctx.json()) {
    printRawJson(ctx.out, reply);
    return common::success();
  }
  Table table({"ID", "KIND", "GPU", "FLAG", "STATE", "CREATED", "FINISHED", "MESSAGE"});
  for (const auto& t : reply.json.value("items", json::array())) {
    table.addRow({text(t, "id"), text(t, "kind"), text(t, "gpu_serial"), text(t, "flag_id"),
                  text(t, "state"), text(t, "created_at"), text(t, "finished_at"),
                  text(t, "message")});
  }
  table.render(ctx.out);
  return common::success();
}

Result<void> rotateCredential(CommandContext& ctx) {
  PROV_ASSIGN(auto id, idArgument(ctx, 0));
  PROV_ASSIGN(
      auto reply,
      ctx.api->postJson(std::string(kNodesPath) + "/" + id + "/credential/rotate", json::object()));
  return printed(ctx, reply,
                 "node " + id + ": rotation requested; the agent rotates at its next batch");
}

Result<void> revokeCredential(CommandContext& ctx) {
  PROV_ASSIGN(auto id, idArgument(ctx, 0));
  PROV_ASSIGN(
      auto reply,
      ctx.api->postJson(std::string(kNodesPath) + "/" + id + "/credential/revoke", json::object()));
  return printed(ctx, reply,
                 "node " + id + ": " + text(reply.json, "revoked") + " credential(s) revoked");
}

}  // namespace

std::vector<Command> nodeCommands() {
  auto listOptions = filterOptions();
  listOptions.push_back({.name = "limit", .metavar = "N"});
  listOptions.push_back({.name = "all", .takesValue = false});
  return {
      {{.group = "nodes",
        .name = "list",
        .options = listOptions,
        .summary = "list nodes, filtered; --all follows every page"},
       listNodes},
      {{.group = "nodes",
        .name = "show",
        .positionals = {"ID"},
        .summary = "show a node with its components and timeline"},
       showNode},
      {{.group = "nodes",
        .name = "export",
        .options = filterOptions(),
        .summary = "every matching node as CSV on stdout"},
       exportNodes},
      {{.group = "nodes",
        .name = "credentials",
        .positionals = {"ID"},
        .summary = "the node's monitor credentials (never the secrets)"},
       listCredentials},
      {{.group = "nodes",
        .name = "resident-tasks",
        .positionals = {"ID"},
        .summary = "the tasks the node's resident agent was given (GPU resets, burn-in reruns)"},
       listResidentTasks},
      {{.group = "nodes",
        .name = "rotate-credential",
        .positionals = {"ID"},
        .summary = "ask the node's resident agent to rotate its monitor credential"},
       rotateCredential},
      {{.group = "nodes",
        .name = "revoke-credential",
        .positionals = {"ID"},
        .summary = "revoke the node's monitor credentials at once"},
       revokeCredential},
  };
}

}  // namespace provisioner::cli

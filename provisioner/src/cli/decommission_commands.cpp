// nodes decommission | decommissions, decommissions show | retry: asking for a node to be
// sanitized and retired, and following what happened to each of its devices.
#include "provisioner/cli/command.hpp"
#include "provisioner/cli/json_fields.hpp"
#include "provisioner/cli/table.hpp"

namespace provisioner::cli {
namespace {

using common::Result;
using nlohmann::json;

std::string decommissionPath(const std::string& id, const std::string& action = "") {
  return "/api/v1/decommissions/" + id + (action.empty() ? "" : "/" + action);
}

void renderSummary(std::ostream& out, const json& d) {
  const json& failure = objectField(d, "failure");
  renderFields(out, {{"Decommission", text(d, "id")},
                     {"Node", text(d, "node_id")},
                     {"Chassis serial", text(d, "chassis_serial")},
                     {"Reason", text(d, "reason")},
                     {"State", text(d, "state")},
                     {"Requested by", text(d, "requested_by")},
                     {"Note", text(d, "note")},
                     {"Started", text(d, "created_at")},
                     {"Finished", text(d, "finished_at")},
                     {"Certificate", text(d, "certificate_id")},
                     {"Failure", text(failure, "reason")}});
}

void renderDevices(std::ostream& out, const json& d) {
  Table table({"SERIAL", "MEDIA", "MODEL", "NIST", "TECHNIQUE", "VERIFIED", "COVERAGE", "RESULT",
               "FAILURE"});
  for (const auto& dev : arrayField(d, "devices")) {
    table.addRow({text(dev, "serial"), text(dev, "media_type"), text(dev, "model"),
                  text(dev, "sanitization"), text(dev, "technique"),
                  text(dev, "verification_method"), text(dev, "verification_coverage"),
                  text(dev, "result"), text(dev, "failure")});
  }
  out << "\nDevices (" << table.rowCount() << ")\n";
  if (table.rowCount() > 0) table.render(out);
}

void renderEvidence(std::ostream& out, const json& d) {
  Table table({"NAME", "SHA256"});
  for (const auto& e : arrayField(d, "evidence")) {
    table.addRow({text(e, "name"), text(e, "sha256")});
  }
  out << "\nEvidence (" << table.rowCount() << ")\n";
  if (table.rowCount() > 0) table.render(out);
}

Result<void> decommissionNode(CommandContext& ctx) {
  PROV_ASSIGN(auto id, idArgument(ctx, 0));
  json body = {{"reason", ctx.invocation.option("reason").value_or("")}};
  if (auto note = ctx.invocation.option("note")) body["note"] = *note;
  PROV_ASSIGN(auto reply, ctx.api->postJson("/api/v1/nodes/" + id + "/decommission", body));
  return printed(ctx, reply,
                 "decommission " + text(reply.json, "id") + " of node " + id + " started (run " +
                     text(reply.json, "run_id") + "); follow it with: provisionerctl " +
                     "decommissions show " + text(reply.json, "id"));
}

Result<void> showDecommission(CommandContext& ctx) {
  PROV_ASSIGN(auto id, idArgument(ctx, 0));
  PROV_ASSIGN(auto reply, ctx.api->getJson(decommissionPath(id)));
  if (ctx.json()) {
    printRawJson(ctx.out, reply);
    return common::success();
  }
  renderSummary(ctx.out, reply.json);
  renderDevices(ctx.out, reply.json);
  renderEvidence(ctx.out, reply.json);
  return common::success();
}

Result<void> listNodeDecommissions(CommandContext& ctx) {
  PROV_ASSIGN(auto id, idArgument(ctx, 0));
  PROV_ASSIGN(auto reply, ctx.api->getJson("/api/v1/nodes/" + id + "/decommissions"));
  if (ctx.json()) {
    printRawJson(ctx.out, reply);
    return common::success();
  }
  Table table({"ID", "REASON", "STATE", "REQUESTED BY", "STARTED", "FINISHED", "CERTIFICATE"});
  for (const auto& d : arrayField(reply.json, "items")) {
    table.addRow({text(d, "id"), text(d, "reason"), text(d, "state"), text(d, "requested_by"),
                  text(d, "created_at"), text(d, "finished_at"), text(d, "certificate_id")});
  }
  table.render(ctx.out);
  return common::success();
}

Result<void> retryDecommission(CommandContext& ctx) {
  PROV_ASSIGN(auto id, idArgument(ctx, 0));
  json body = json::object();
  if (auto step = ctx.invocation.option("step")) body["step"] = *step;
  PROV_ASSIGN(auto reply, ctx.api->postJson(decommissionPath(id, "retry"), body));
  return printed(ctx, reply, "decommission " + id + " retried");
}

}  // namespace

std::vector<Command> decommissionCommands() {
  return {
      {{.group = "nodes",
        .name = "decommission",
        .positionals = {"ID"},
        .options = {{.name = "reason",
                     .metavar = "rma|refresh|redeploy|tenant_change|disposal",
                     .required = true},
                    {.name = "note", .metavar = "TEXT"}},
        .summary = "sanitize the node's devices, certify it and retire it"},
       decommissionNode},
      {{.group = "nodes",
        .name = "decommissions",
        .positionals = {"ID"},
        .summary = "list the node's decommissions"},
       listNodeDecommissions},
      {{.group = "decommissions",
        .name = "show",
        .positionals = {"ID"},
        .summary =
            "show a decommission: each device's sanitization, the evidence, the certificate"},
       showDecommission},
      {{.group = "decommissions",
        .name = "retry",
        .positionals = {"ID"},
        .options = {{.name = "step", .metavar = "STEP"}},
        .summary = "run the failed step of a decommission again (or --step)"},
       retryDecommission},
  };
}

}  // namespace provisioner::cli

// asset show: one serial's summary, where it is, what it holds, and everything that happened to it.
#include "provisioner/cli/command.hpp"
#include "provisioner/cli/json_fields.hpp"
#include "provisioner/cli/table.hpp"
#include "provisioner/cli/url.hpp"

namespace provisioner::cli {
namespace {

using common::Result;
using nlohmann::json;

void renderSummary(std::ostream& out, const json& asset) {
  renderFields(out, {{"Serial", text(asset, "serial")},
                     {"Type", text(asset, "asset_type")},
                     {"Kind", text(asset, "kind")},
                     {"Manufacturer", text(asset, "manufacturer")},
                     {"Model", text(asset, "model")},
                     {"Part number", text(asset, "part_number")},
                     {"State", text(asset, "state")},
                     {"Firmware", text(asset, "firmware_version")},
                     {"PO number", text(asset, "po_number")}});
}

// The current end of life (the newest disposition), when one was recorded.
void renderDisposition(std::ostream& out, const json& asset) {
  const json& d = objectField(asset, "disposition");
  if (d.empty()) return;
  std::string detail = text(d, "rma_ticket");
  if (detail.empty()) detail = text(d, "recycler");
  out << "\nDisposition\n";
  renderFields(out, {{"Disposition", text(d, "disposition")},
                     {"Reference", detail},
                     {"Replacement", text(d, "replacement_serial")},
                     {"Recorded", text(d, "recorded_at")},
                     {"Recorded by", text(d, "recorded_by")}});
}

void renderLocation(std::ostream& out, const json& asset) {
  const json& loc = objectField(asset, "location");
  out << "\nLocation\n";
  renderFields(out, {{"Site", text(loc, "site")},
                     {"Room", text(loc, "room")},
                     {"Row", text(loc, "row")},
                     {"Rack", text(loc, "rack")},
                     {"U position", text(loc, "u_position")},
                     {"Node", text(loc, "node_id")},
                     {"Node serial", text(loc, "node_serial")},
                     {"Slot", text(loc, "slot")}});
}

void renderComponents(std::ostream& out, const json& asset) {
  Table table({"KIND", "SLOT", "MANUFACTURER", "MODEL", "PART NUMBER", "SERIAL", "FIRMWARE"});
  for (const auto& c : arrayField(asset, "components")) {
    table.addRow({text(c, "kind"), text(c, "slot"), text(c, "manufacturer"), text(c, "model"),
                  text(c, "part_number"), text(c, "serial"), text(c, "firmware_version")});
  }
  out << "\nComponents (" << table.rowCount() << ")\n";
  if (table.rowCount() > 0) table.render(out);
}

void renderHistory(std::ostream& out, const json& asset) {
  Table table({"AT", "EVENT", "NODE", "NODE SERIAL", "SLOT", "FROM", "TO", "REASON"});
  for (const auto& h : arrayField(asset, "history")) {
    table.addRow({text(h, "at"), text(h, "event"), text(h, "node_id"), text(h, "node_serial"),
                  text(h, "slot"), text(h, "from_version"), text(h, "to_version"),
                  text(h, "reason")});
  }
  out << "\nHistory (" << table.rowCount() << ")\n";
  if (table.rowCount() > 0) table.render(out);
}

Result<void> showAsset(CommandContext& ctx) {
  auto reply =
      ctx.api->getJson("/api/v1/assets/" + percentEncode(ctx.invocation.positionals.at(0)));
  PROV_TRY(reply);
  if (ctx.json()) {
    printRawJson(ctx.out, *reply);
    return common::success();
  }
  renderSummary(ctx.out, reply->json);
  renderLocation(ctx.out, reply->json);
  renderDisposition(ctx.out, reply->json);
  if (text(reply->json, "asset_type") == "node") renderComponents(ctx.out, reply->json);
  renderHistory(ctx.out, reply->json);
  return common::success();
}

}  // namespace

std::vector<Command> assetCommands() {
  return {{{.group = "asset",
            .name = "show",
            .positionals = {"SERIAL"},
            .summary = "show an asset by serial: location, components, history"},
           showAsset}};
}

}  // namespace provisioner::cli

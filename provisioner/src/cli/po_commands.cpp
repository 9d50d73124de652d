// po import | list | show | reconcile: purchase orders and what arrived against them.
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "provisioner/cli/command.hpp"
#include "provisioner/cli/errors.hpp"
#include "provisioner/cli/json_fields.hpp"
#include "provisioner/cli/paging.hpp"
#include "provisioner/cli/table.hpp"

namespace provisioner::cli {
namespace {

using common::Result;
using nlohmann::json;

constexpr const char* kPoPath = "/api/v1/purchase-orders";

std::string poPath(const std::string& poNumber) {
  return kPoPath + ("/" + percentEncode(poNumber));
}

Result<std::string> readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return common::fail(localIoError("cannot read " + path + ": " + std::strerror(errno)));
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

void renderPurchaseOrder(std::ostream& out, const json& po) {
  renderFields(out, {{"PO number", text(po, "po_number")},
                     {"Vendor", text(po, "vendor")},
                     {"Status", text(po, "status")},
                     {"Assets", text(po, "asset_count")},
                     {"Created", text(po, "created_at")},
                     {"Updated", text(po, "updated_at")}});
  Table lines({"LINE", "MODEL", "QTY", "GPUS", "DESCRIPTION"});
  for (const auto& l : arrayField(po, "line_items")) {
    lines.addRow({text(l, "line_no"), text(l, "model"), text(l, "quantity"), text(l, "gpu_count"),
                  text(l, "description")});
  }
  out << "\nLine items (" << lines.rowCount() << ")\n";
  if (lines.rowCount() > 0) lines.render(out);
  Table assets({"SERIAL", "MODEL", "BMC MAC", "GPUS", "RACK", "U", "LINE", "PASSWORD"});
  for (const auto& a : arrayField(po, "assets")) {
    assets.addRow({text(a, "chassis_serial"), text(a, "model"), text(a, "bmc_mac"),
                   text(a, "gpu_count"), text(a, "rack"), text(a, "u_position"), text(a, "line_no"),
                   text(a, "has_factory_password")});
  }
  out << "\nAssets (" << assets.rowCount() << ")\n";
  if (assets.rowCount() > 0) assets.render(out);
}

Result<void> importPo(CommandContext& ctx) {
  const std::string& file = ctx.invocation.positionals.at(0);
  auto csv = readFile(file);
  PROV_TRY(csv);
  Query query{{"po_number", ctx.invocation.option("po").value_or("")},
              {"vendor", ctx.invocation.option("vendor").value_or("")}};
  auto reply =
      ctx.api->postBody(kPoPath + std::string("/import"), query, std::move(*csv), "text/csv");
  PROV_TRY(reply);
  if (ctx.json()) {
    printRawJson(ctx.out, *reply);
    return common::success();
  }
  ctx.out << "Imported " << file << " into " << text(reply->json, "po_number") << "\n\n";
  renderPurchaseOrder(ctx.out, reply->json);
  return common::success();
}

Result<void> listPos(CommandContext& ctx) {
  auto listing = fetchListing(ctx, kPoPath, {});
  PROV_TRY(listing);
  if (ctx.json()) {
    printListingJson(ctx.out, *listing);
    return common::success();
  }
  Table table({"PO NUMBER", "VENDOR", "STATUS", "ASSETS", "CREATED", "UPDATED"});
  for (const auto& po : listing->items) {
    table.addRow({text(po, "po_number"), text(po, "vendor"), text(po, "status"),
                  text(po, "asset_count"), text(po, "created_at"), text(po, "updated_at")});
  }
  table.render(ctx.out);
  noteMorePages(ctx, *listing);
  return common::success();
}

Result<void> showPo(CommandContext& ctx) {
  auto reply = ctx.api->getJson(poPath(ctx.invocation.positionals.at(0)));
  PROV_TRY(reply);
  if (ctx.json()) {
    printRawJson(ctx.out, *reply);
  } else {
    renderPurchaseOrder(ctx.out, reply->json);
  }
  return common::success();
}

// `count` is the number of units, which differs from the rows for mismatches.
void renderSection(std::ostream& out, const char* title, std::size_t count, const Table& table) {
  if (table.rowCount() == 0) return;
  out << '\n' << title << " (" << count << ")\n";
  table.render(out);
}

void renderReconciliation(std::ostream& out, const json& report) {
  const json& counts = objectField(report, "counts");
  renderFields(out, {{"PO number", text(report, "po_number")},
                     {"Expected", text(counts, "expected")},
                     {"Received", text(counts, "received")},
                     {"Mismatched", text(counts, "mismatched")},
                     {"Missing", text(counts, "missing")},
                     {"Unexpected", text(counts, "unexpected")}});
  Table received({"SERIAL", "NODE", "NODE SERIAL"});
  for (const auto& r : arrayField(report, "received")) {
    received.addRow({text(r, "chassis_serial"), text(r, "node_id"), text(r, "node_serial")});
  }
  renderSection(out, "Received", received.rowCount(), received);
  // One row per differing field, so a unit with two mismatches shows twice.
  Table mismatched({"SERIAL", "NODE", "NODE SERIAL", "FIELD", "EXPECTED", "ACTUAL"});
  for (const auto& m : arrayField(report, "mismatched")) {
    for (const auto& d : arrayField(m, "mismatches")) {
      mismatched.addRow({text(m, "chassis_serial"), text(m, "node_id"), text(m, "node_serial"),
                         text(d, "field"), text(d, "expected"), text(d, "actual")});
    }
  }
  renderSection(out, "Mismatched", arrayField(report, "mismatched").size(), mismatched);
  Table missing({"SERIAL"});
  for (const auto& m : arrayField(report, "missing")) missing.addRow({text(m, "chassis_serial")});
  renderSection(out, "Missing", missing.rowCount(), missing);
  Table unexpected({"NODE", "STATE", "MODEL", "SERIAL", "BMC MAC", "SITE", "RACK", "U"});
  for (const auto& n : arrayField(report, "unexpected")) {
    unexpected.addRow({text(n, "id"), text(n, "state"), text(n, "hardware_model"),
                       text(n, "chassis_serial"), text(n, "bmc_mac"), text(n, "site"),
                       text(n, "rack"), text(n, "u_position")});
  }
  renderSection(out, "Unexpected", unexpected.rowCount(), unexpected);
}

Result<void> reconcilePo(CommandContext& ctx) {
  auto reply = ctx.api->getJson(poPath(ctx.invocation.positionals.at(0)) + "/reconciliation");
  PROV_TRY(reply);
  if (ctx.json()) {
    printRawJson(ctx.out, *reply);
  } else {
    renderReconciliation(ctx.out, reply->json);
  }
  return common::success();
}

}  // namespace

std::vector<Command> poCommands() {
  return {
      {{.group = "po",
        .name = "import",
        .positionals = {"FILE.csv"},
        .options = {{.name = "po", .metavar = "PO_NUMBER", .required = true},
                    {.name = "vendor", .metavar = "VENDOR", .required = true}},
        .summary = "import an advance ship notice (CSV) into a purchase order"},
       importPo},
      {{.group = "po",
        .name = "list",
        .options = {{.name = "limit", .metavar = "N"}, {.name = "all", .takesValue = false}},
        .summary = "list purchase orders"},
       listPos},
      {{.group = "po", .name = "show", .positionals = {"PO"}, .summary = "show a purchase order"},
       showPo},
      {{.group = "po",
        .name = "reconcile",
        .positionals = {"PO"},
        .summary = "what arrived against a purchase order: received, mismatched, missing"},
       reconcilePo},
  };
}

}  // namespace provisioner::cli

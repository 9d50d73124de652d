// asset disposition, po end-of-life: what became of an asset after it left service, and where a
// purchase order's units are at end of life.
#include <charconv>

#include "provisioner/cli/command.hpp"
#include "provisioner/cli/json_fields.hpp"
#include "provisioner/cli/table.hpp"
#include "provisioner/cli/url.hpp"

namespace provisioner::cli {
namespace {

using common::Result;
using nlohmann::json;

constexpr const char* kDispositionFlags[] = {"rma", "spare", "redeploy", "recycled"};

// CLI flag -> API field; the service checks which apply to the disposition.
struct FieldFlag {
  const char* flag;
  const char* field;
};
constexpr FieldFlag kFieldFlags[] = {
    {"ticket", "rma_ticket"},  {"vendor", "rma_vendor"},
    {"shipped", "shipped_on"}, {"replacement", "replacement_serial"},
    {"recycler", "recycler"},  {"recycler-certificate", "recycler_certificate"},
    {"note", "note"}};

Result<std::string> dispositionOf(CommandContext& ctx) {
  std::string chosen;
  for (const char* flag : kDispositionFlags) {
    if (!ctx.invocation.has(flag)) continue;
    if (!chosen.empty()) {
      return common::fail(commandUsageError(ctx,
                                            "give one of --rma, --spare, --redeploy, "
                                            "--recycled, not --" +
                                                chosen + " and --" + flag));
    }
    chosen = flag;
  }
  if (chosen.empty()) {
    return common::fail(
        commandUsageError(ctx, "give one of --rma, --spare, --redeploy, --recycled"));
  }
  return chosen;
}

Result<json> dispositionBody(CommandContext& ctx) {
  PROV_ASSIGN(auto disposition, dispositionOf(ctx));
  json body = {{"disposition", disposition}};
  for (const auto& [flag, field] : kFieldFlags) {
    if (auto value = ctx.invocation.option(flag)) body[field] = *value;
  }
  if (auto weight = ctx.invocation.option("weight")) {
    double kg = 0;
    auto [end, ec] = std::from_chars(weight->data(), weight->data() + weight->size(), kg);
    if (ec != std::errc() || end != weight->data() + weight->size()) {
      return common::fail(
          commandUsageError(ctx, "--weight must be a number of kilograms, got '" + *weight + "'"));
    }
    body["weight_kg"] = kg;
  }
  return body;
}

Result<void> recordDisposition(CommandContext& ctx) {
  const std::string& serial = ctx.invocation.positionals.at(0);
  PROV_ASSIGN(auto body, dispositionBody(ctx));
  PROV_ASSIGN(auto reply,
              ctx.api->postJson("/api/v1/assets/" + percentEncode(serial) + "/disposition", body));
  return printed(ctx, reply,
                 "recorded " + text(reply.json, "disposition") + " for " + serial + " (" +
                     text(reply.json, "asset_type") + ", disposition " + text(reply.json, "id") +
                     ")");
}

Result<void> endOfLife(CommandContext& ctx) {
  const std::string& po = ctx.invocation.positionals.at(0);
  PROV_ASSIGN(auto reply,
              ctx.api->getJson("/api/v1/purchase-orders/" + percentEncode(po) + "/end-of-life"));
  if (ctx.json()) {
    printRawJson(ctx.out, reply);
    return common::success();
  }
  Table table({"MODEL", "UNITS", "RETIRED", "RMA", "SPARE", "REDEPLOY", "RECYCLED"});
  auto add = [&table](const std::string& model, const json& row) {
    table.addRow({model, text(row, "units"), text(row, "retired"), text(row, "rma"),
                  text(row, "spare"), text(row, "redeploy"), text(row, "recycled")});
  };
  for (const auto& row : arrayField(reply.json, "models")) add(text(row, "model"), row);
  add("TOTAL", objectField(reply.json, "totals"));
  table.render(ctx.out);
  return common::success();
}

}  // namespace

std::vector<Command> dispositionCommands() {
  return {
      {{.group = "asset",
        .name = "disposition",
        .positionals = {"SERIAL"},
        .options = {{.name = "rma", .takesValue = false},
                    {.name = "spare", .takesValue = false},
                    {.name = "redeploy", .takesValue = false},
                    {.name = "recycled", .takesValue = false},
                    {.name = "ticket", .metavar = "T"},
                    {.name = "vendor", .metavar = "V"},
                    {.name = "shipped", .metavar = "YYYY-MM-DD"},
                    {.name = "replacement", .metavar = "SERIAL"},
                    {.name = "recycler", .metavar = "NAME"},
                    {.name = "recycler-certificate", .metavar = "REF"},
                    {.name = "weight", .metavar = "KG"},
                    {.name = "note", .metavar = "TEXT"}},
        .summary = "record an asset's end of life: --rma, --spare, --redeploy or --recycled"},
       recordDisposition},
      {{.group = "po",
        .name = "end-of-life",
        .positionals = {"PO_NUMBER"},
        .summary = "per model: units retired, under RMA, spares, redeployed, recycled"},
       endOfLife},
  };
}

}  // namespace provisioner::cli

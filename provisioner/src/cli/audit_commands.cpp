// audit: the log of every mutating call, newest first.
#include "provisioner/cli/command.hpp"
#include "provisioner/cli/json_fields.hpp"
#include "provisioner/cli/paging.hpp"
#include "provisioner/cli/table.hpp"

namespace provisioner::cli {
namespace {

using common::Result;

Result<void> listAudit(CommandContext& ctx) {
  auto listing = fetchListing(ctx, "/api/v1/audit", {});
  PROV_TRY(listing);
  if (ctx.json()) {
    printListingJson(ctx.out, *listing);
    return common::success();
  }
  Table table({"AT", "ACTOR", "ROLE", "METHOD", "PATH", "STATUS", "OUTCOME", "REQUEST"});
  for (const auto& e : listing->items) {
    table.addRow({text(e, "at"), text(e, "actor"), text(e, "role"), text(e, "method"),
                  text(e, "path"), text(e, "status"), text(e, "outcome"), text(e, "request_id")});
  }
  table.render(ctx.out);
  noteMorePages(ctx, *listing);
  return common::success();
}

}  // namespace

std::vector<Command> auditCommands() {
  return {{{.group = "audit",
            .options = {{.name = "limit", .metavar = "N"}, {.name = "all", .takesValue = false}},
            .summary = "show the audit log, newest first"},
           listAudit}};
}

}  // namespace provisioner::cli

// token create | list | revoke: API tokens (admin). A new token is printed once, at creation.
#include "provisioner/cli/command.hpp"
#include "provisioner/cli/json_fields.hpp"
#include "provisioner/cli/paging.hpp"
#include "provisioner/cli/table.hpp"

namespace provisioner::cli {
namespace {

using common::Result;

constexpr const char* kTokensPath = "/api/v1/tokens";

Result<void> createToken(CommandContext& ctx) {
  nlohmann::json body = {{"name", ctx.invocation.option("name").value_or("")},
                         {"role", ctx.invocation.option("role").value_or("")}};
  auto reply = ctx.api->postJson(kTokensPath, body);
  PROV_TRY(reply);
  if (ctx.json()) {
    printRawJson(ctx.out, *reply);
    return common::success();
  }
  const auto& token = reply->json;
  ctx.out << "Created token " << text(token, "id") << " '" << sanitize(text(token, "name"))
          << "' with role " << sanitize(text(token, "role")) << ".\n"
          << "It is shown only now; store it safely:\n"
          << sanitize(text(token, "token")) << '\n';
  return common::success();
}

Result<void> listTokens(CommandContext& ctx) {
  auto listing = fetchListing(ctx, kTokensPath, {});
  PROV_TRY(listing);
  if (ctx.json()) {
    printListingJson(ctx.out, *listing);
    return common::success();
  }
  Table table({"ID", "NAME", "ROLE", "CREATED", "REVOKED"});
  for (const auto& t : listing->items) {
    table.addRow({text(t, "id"), text(t, "name"), text(t, "role"), text(t, "created_at"),
                  text(t, "revoked_at")});
  }
  table.render(ctx.out);
  noteMorePages(ctx, *listing);
  return common::success();
}

Result<void> revokeToken(CommandContext& ctx) {
  const std::string& id = ctx.invocation.positionals.at(0);
  if (!isDecimalId(id))
    return common::fail(commandUsageError(ctx, "ID must be a number, got '" + id + "'"));
  auto reply = ctx.api->deleteJson(std::string(kTokensPath) + "/" + id);
  PROV_TRY(reply);
  if (ctx.json()) {
    printRawJson(ctx.out, *reply);
    return common::success();
  }
  ctx.out << "Revoked token " << text(reply->json, "id") << " '"
          << sanitize(text(reply->json, "name")) << "' at "
          << sanitize(text(reply->json, "revoked_at")) << ".\n";
  return common::success();
}

}  // namespace

std::vector<Command> tokenCommands() {
  return {
      {{.group = "token",
        .name = "create",
        .options = {{.name = "name", .metavar = "N", .required = true},
                    {.name = "role", .metavar = "R", .required = true}},
        .summary = "create an API token (roles: viewer, procurement, asset, operator, admin)"},
       createToken},
      {{.group = "token",
        .name = "list",
        .options = {{.name = "limit", .metavar = "N"}, {.name = "all", .takesValue = false}},
        .summary = "list API tokens"},
       listTokens},
      {{.group = "token",
        .name = "revoke",
        .positionals = {"ID"},
        .summary = "revoke an API token"},
       revokeToken},
  };
}

}  // namespace provisioner::cli

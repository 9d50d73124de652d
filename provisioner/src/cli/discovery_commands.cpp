// discovery lease | sweep | manifest | list: the triggers by hand (a lease a DHCP server would
// have reported, a subnet sweep, a rack manifest) and the BMCs seen so far.
#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

#include "provisioner/cli/command.hpp"
#include "provisioner/cli/json_fields.hpp"
#include "provisioner/cli/paging.hpp"
#include "provisioner/cli/table.hpp"

namespace provisioner::cli {
namespace {

using common::Result;
using nlohmann::json;

constexpr auto kSweepPoll = std::chrono::seconds(1);
constexpr int kDefaultWaitSeconds = 600;

Result<void> reportLease(CommandContext& ctx) {
  const auto& args = ctx.invocation.positionals;
  if (args[0] != "add" && args[0] != "old" && args[0] != "del") {
    return common::fail(commandUsageError(ctx, "ACTION must be add, old or del"));
  }
  json body = {{"action", args[0]}, {"mac", args[1]}, {"ip", args[2]}};
  if (auto hostname = ctx.invocation.option("hostname")) body["hostname"] = *hostname;
  if (auto vendor = ctx.invocation.option("vendor-class")) body["vendor_class"] = *vendor;
  PROV_ASSIGN(auto reply, ctx.api->postJson("/api/v1/discovery/leases", body));
  const json& d = objectField(reply.json, "discovery");
  std::string line = "BMC " + sanitize(text(d, "bmc_mac")) + " at " +
                     sanitize(text(d, "bmc_address")) + ": discovery " + text(d, "id");
  if (!text(reply.json, "run_id").empty()) {
    const bool created = text(reply.json, "run_created") == "yes";
    line += created ? ", lifecycle run " + text(reply.json, "run_id") + " started"
                    : ", lifecycle run " + text(reply.json, "run_id") + " (already there)";
  }
  return printed(ctx, reply, line + ".");
}

Result<int> intOption(CommandContext& ctx, const char* name, int fallback) {
  auto value = ctx.invocation.option(name);
  if (!value) return fallback;
  if (!isDecimalId(*value) || value->size() > 6) {
    return common::fail(commandUsageError(ctx, std::string("--") + name + " must be a number"));
  }
  return std::stoi(*value);
}

// Polls the sweep until it ends or `seconds` pass.
Result<ApiReply> awaitSweep(CommandContext& ctx, ApiReply reply, int seconds) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  const std::string path = "/api/v1/discovery/sweeps/" + text(reply.json, "id");
  while (text(reply.json, "state") == "running") {
    if (std::chrono::steady_clock::now() >= deadline) {
      return common::fail(common::unavailable(
          "sweep_running", "sweep " + text(reply.json, "id") + " is still running"));
    }
    std::this_thread::sleep_for(kSweepPoll);  // a poll interval, between requests to the service
    PROV_ASSIGN(reply, ctx.api->getJson(path));
  }
  return reply;
}

Result<void> startSweep(CommandContext& ctx) {
  json body = {{"cidr", ctx.invocation.positionals[0]}};
  PROV_ASSIGN(auto port, intOption(ctx, "port", 443));
  body["port"] = port;
  for (const char* field : {"scheme", "site", "rack"}) {
    if (auto value = ctx.invocation.option(field)) body[field] = *value;
  }
  PROV_ASSIGN(auto reply, ctx.api->postJson("/api/v1/discovery/sweeps", body));
  if (ctx.invocation.has("wait")) {
    PROV_ASSIGN(auto seconds, intOption(ctx, "timeout", kDefaultWaitSeconds));
    PROV_ASSIGN(reply, awaitSweep(ctx, std::move(reply), seconds));
  }
  return printed(ctx, reply,
                 "Sweep " + text(reply.json, "id") + " of " + sanitize(text(reply.json, "cidr")) +
                     ": " + text(reply.json, "state") + ", " + text(reply.json, "probed") + "/" +
                     text(reply.json, "addresses") + " probed, " + text(reply.json, "found") +
                     " found.");
}

Result<void> importManifest(CommandContext& ctx) {
  const std::string& path = ctx.invocation.positionals[0];
  std::ifstream in(path, std::ios::binary);
  if (!in) return common::fail(commandUsageError(ctx, "cannot read " + path));
  std::ostringstream content;
  content << in.rdbuf();
  auto doc = json::parse(content.str(), nullptr, false);
  if (!doc.is_object()) return common::fail(commandUsageError(ctx, path + " is not a JSON object"));
  PROV_ASSIGN(auto reply, ctx.api->postJson("/api/v1/discovery/rack-manifests", doc));
  if (ctx.json()) {
    printRawJson(ctx.out, reply);
    return common::success();
  }
  Table table({"U", "BMC MAC", "ADDRESS", "SERIAL", "DISCOVERY", "RUN", "NEW RUN"});
  for (const auto& item : arrayField(reply.json, "items")) {
    const json& d = objectField(item, "discovery");
    table.addRow({text(d, "u_position"), text(d, "bmc_mac"), text(d, "bmc_address"),
                  text(d, "expected_serial"), text(d, "id"), text(item, "run_id"),
                  text(item, "run_created")});
  }
  table.render(ctx.out);
  return common::success();
}

Result<void> listBmcs(CommandContext& ctx) {
  auto listing = fetchListing(ctx, "/api/v1/discovery/bmcs", {});
  PROV_TRY(listing);
  if (ctx.json()) {
    printListingJson(ctx.out, *listing);
    return common::success();
  }
  Table table({"ID", "BMC MAC", "ADDRESS", "SOURCE", "SITE", "RACK", "U", "LEASE", "NODE", "SEEN",
               "LAST SEEN"});
  for (const auto& d : listing->items) {
    table.addRow({text(d, "id"), text(d, "bmc_mac"), text(d, "bmc_address"), text(d, "source"),
                  text(d, "site"), text(d, "rack"), text(d, "u_position"), text(d, "lease_state"),
                  text(d, "node_id"), text(d, "seen_count"), text(d, "last_seen_at")});
  }
  table.render(ctx.out);
  noteMorePages(ctx, *listing);
  return common::success();
}

}  // namespace

std::vector<Command> discoveryCommands() {
  return {
      {{.group = "discovery",
        .name = "lease",
        .positionals = {"ACTION", "MAC", "IP"},
        .options = {{.name = "hostname", .metavar = "H"}, {.name = "vendor-class", .metavar = "V"}},
        .summary = "report a DHCP lease (add, old or del) as a DHCP hook would"},
       reportLease},
      {{.group = "discovery",
        .name = "sweep",
        .positionals = {"CIDR"},
        .options = {{.name = "port", .metavar = "P"},
                    {.name = "scheme", .metavar = "S"},
                    {.name = "site", .metavar = "SITE"},
                    {.name = "rack", .metavar = "RACK"},
                    {.name = "wait", .takesValue = false},
                    {.name = "timeout", .metavar = "SECONDS"}},
        .summary = "probe every address of CIDR for a Redfish BMC (--wait: until done)"},
       startSweep},
      {{.group = "discovery",
        .name = "manifest",
        .positionals = {"FILE.json"},
        .summary = "import a rack manifest: every BMC recorded and started"},
       importManifest},
      {{.group = "discovery",
        .name = "list",
        .options = {{.name = "limit", .metavar = "N"}, {.name = "all", .takesValue = false}},
        .summary = "the BMCs seen on the network"},
       listBmcs},
  };
}

}  // namespace provisioner::cli

// firmware packages upload | list, firmware compliance: packages into the content-addressed
// store, and the fleet's firmware against its baselines.
#include "file_digest.hpp"
#include "provisioner/cli/command.hpp"
#include "provisioner/cli/json_fields.hpp"
#include "provisioner/cli/paging.hpp"
#include "provisioner/cli/table.hpp"

namespace provisioner::cli {
namespace {

using common::Result;
using nlohmann::json;

constexpr const char* kPackagesPath = "/api/v1/firmware/packages";
constexpr const char* kArtifactsPath = "/api/v1/artifacts/";
constexpr const char* kCompliancePath = "/api/v1/firmware/compliance";
constexpr const char* kStatuses[] = {"compliant", "below", "above", "unknown", "unreachable"};

std::vector<std::string> splitList(const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    std::string item = text.substr(start, comma - start);
    while (!item.empty() && item.front() == ' ') item.erase(item.begin());
    while (!item.empty() && item.back() == ' ') item.pop_back();
    if (!item.empty()) out.push_back(item);
    start = comma + 1;
  }
  return out;
}

Result<json> packageBody(CommandContext& ctx, const std::string& sha256) {
  const auto& inv = ctx.invocation;
  const auto software_id = inv.option("software-id");
  const auto pattern = inv.option("pattern");
  if (software_id.has_value() == pattern.has_value()) {
    return common::fail(commandUsageError(ctx, "give exactly one of --software-id or --pattern"));
  }
  json body = {
      {"name", inv.option("name").value_or("")},
      {"version", inv.option("version").value_or("")},
      {"component", inv.option("component").value_or("")},
      {"sha256", sha256},
      {"match", software_id ? json{{"software_id", *software_id}} : json{{"pattern", *pattern}}},
      {"allow_downgrade", inv.has("allow-downgrade")}};
  if (inv.has("simple-update-fallback")) body["simple_update_fallback"] = true;
  for (const char* flag : {"vendor", "install-method", "apply", "min-from-version"}) {
    std::string key = flag;
    for (char& c : key) c = c == '-' ? '_' : c;
    if (auto value = inv.option(flag)) body[key] = *value;
  }
  if (auto models = inv.option("models")) body["models"] = splitList(*models);
  if (auto seconds = inv.option("estimated-seconds")) {
    if (!isDecimalId(*seconds) || seconds->size() > 7) {
      return common::fail(commandUsageError(ctx, "--estimated-seconds must be a number"));
    }
    body["estimated_seconds"] = std::stoi(*seconds);
  }
  return body;
}

// The file into the store (unless it is there already), then the package naming its digest.
Result<void> uploadPackage(CommandContext& ctx) {
  const std::string& file = ctx.invocation.positionals.at(0);
  PROV_ASSIGN(auto sha256, sha256OfFile(file));
  PROV_ASSIGN(auto body, packageBody(ctx, sha256));
  auto existing = ctx.api->getJson(kArtifactsPath + sha256);
  if (!existing) {
    if (existing.error().code != "artifact_not_found") return common::fail(existing.error());
    PROV_TRY(ctx.api->putFile(kArtifactsPath + sha256, file));
  }
  PROV_ASSIGN(auto reply, ctx.api->postJson(kPackagesPath, body));
  const json& p = reply.json;
  return printed(ctx, reply,
                 std::string(reply.status == 201 ? "Registered" : "Already registered") +
                     " firmware package " + sanitize(text(p, "name")) + " " +
                     sanitize(text(p, "version")) + " (" + text(p, "component") + ", " +
                     text(p, "size") + " bytes, sha256 " + sha256 + ").");
}

Result<void> listPackages(CommandContext& ctx) {
  Query query;
  for (const char* filter : {"name", "component", "model"}) {
    if (auto value = ctx.invocation.option(filter)) query.emplace_back(filter, *value);
  }
  PROV_ASSIGN(auto listing, fetchListing(ctx, kPackagesPath, query));
  if (ctx.json()) {
    printListingJson(ctx.out, listing);
    return common::success();
  }
  Table table({"NAME", "VERSION", "COMPONENT", "MODELS", "INSTALL", "APPLY", "SIZE", "SHA256"});
  for (const auto& p : listing.items) {
    std::string models;
    for (const auto& m : arrayField(p, "models"))
      models += (models.empty() ? "" : ", ") + scalarText(m);
    table.addRow({text(p, "name"), text(p, "version"), text(p, "component"),
                  models.empty() ? "any" : models, text(p, "install_method"), text(p, "apply"),
                  text(p, "size"), text(p, "sha256").substr(0, 12)});
  }
  table.render(ctx.out);
  noteMorePages(ctx, listing);
  return common::success();
}

std::vector<std::string> statusCells(const json& counts) {
  std::vector<std::string> cells;
  for (const char* s : kStatuses) cells.push_back(std::to_string(counts.value(s, 0)));
  return cells;
}

void renderRollups(std::ostream& out, const json& report, const std::string& by) {
  std::vector<std::string> header = {by == "rack" ? "SITE" : by == "site" ? "SITE" : "MODEL"};
  if (by == "rack") header.push_back("RACK");
  header.push_back("NODES");
  for (const char* s : kStatuses) {
    std::string upper = s;
    for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    header.push_back(upper);
  }
  Table table(header);
  for (const auto& r : arrayField(objectField(report, "rollups"), by)) {
    std::vector<std::string> row = {by == "model" ? text(r, "model") : text(r, "site")};
    if (by == "rack") row.push_back(text(r, "rack"));
    row.push_back(text(r, "nodes"));
    for (auto& cell : statusCells(objectField(r, "statuses"))) row.push_back(cell);
    table.addRow(row);
  }
  table.render(out);
}

void renderNodes(std::ostream& out, const json& report) {
  Table table({"NODE", "SERIAL", "MODEL", "RACK", "COMPONENT", "INSTALLED", "TARGET", "STATUS",
               "OBSERVED"});
  for (const auto& n : arrayField(report, "nodes")) {
    for (const auto& c : arrayField(n, "components")) {
      std::string installed;
      for (const auto& v : arrayField(c, "installed"))
        installed += (installed.empty() ? "" : ", ") + scalarText(v);
      const json& target = objectField(c, "target");
      std::string status = text(c, "status");
      if (c.value("mixed", false)) status += " (mixed)";
      table.addRow({text(n, "node_id"), text(n, "chassis_serial"), text(n, "model"),
                    text(n, "rack"), text(c, "component"), installed.empty() ? "-" : installed,
                    target.empty() ? "-" : text(target, "version"), status,
                    text(n, "observed_at")});
    }
  }
  table.render(out);
  const auto& mixed = arrayField(report, "mixed");
  if (!mixed.empty()) out << "\nMixed (" << mixed.size() << ")\n";
  for (const auto& g : mixed) {
    std::string versions;
    for (const auto& [version, nodes] : objectField(g, "versions").items()) {
      versions += (versions.empty() ? "" : "; ") + version + " on " + std::to_string(nodes.size()) +
                  (nodes.size() == 1 ? " node" : " nodes");
    }
    out << "  "
        << sanitize(text(g, "label") + "=" + text(g, "value") + " " + text(g, "component") + ": " +
                    versions)
        << "\n";
  }
  const json& total = objectField(objectField(report, "rollups"), "total");
  const json& counts = objectField(total, "statuses");
  out << "\n" << text(total, "nodes") << " nodes:";
  for (const char* s : kStatuses)
    out << " " << counts.value(s, 0) << " " << s << (s == kStatuses[4] ? "" : ",");
  out << "\n";
  const auto& uncovered = arrayField(report, "not_covered");
  if (!uncovered.empty()) out << uncovered.size() << " nodes have no baseline that covers them\n";
}

Result<void> compliance(CommandContext& ctx) {
  Query query;
  for (const char* filter : {"site", "rack", "model", "baseline", "labels"}) {
    if (auto value = ctx.invocation.option(filter)) query.emplace_back(filter, *value);
  }
  if (ctx.invocation.has("csv")) {
    query.emplace_back("format", "csv");
    PROV_ASSIGN(auto reply, ctx.api->getText(kCompliancePath, query, "text/csv"));
    ctx.out << reply.body;
    return common::success();
  }
  const std::string by = ctx.invocation.option("by").value_or("");
  if (!by.empty() && by != "site" && by != "rack" && by != "model") {
    return common::fail(commandUsageError(ctx, "--by must be site, rack or model"));
  }
  PROV_ASSIGN(auto reply, ctx.api->getJson(kCompliancePath, query));
  if (ctx.json()) {
    printRawJson(ctx.out, reply);
  } else if (!by.empty()) {
    renderRollups(ctx.out, reply.json, by);
  } else {
    renderNodes(ctx.out, reply.json);
  }
  return common::success();
}

}  // namespace

std::vector<Command> firmwareCommands() {
  return {
      {{.group = "firmware",
        .name = "packages upload",
        .positionals = {"FILE"},
        .options = {{.name = "name", .metavar = "NAME", .required = true},
                    {.name = "version", .metavar = "VERSION", .required = true},
                    {.name = "component", .metavar = "COMPONENT", .required = true},
                    {.name = "software-id", .metavar = "ID"},
                    {.name = "pattern", .metavar = "TEXT"},
                    {.name = "vendor", .metavar = "VENDOR"},
                    {.name = "models", .metavar = "MODEL[,MODEL...]"},
                    {.name = "install-method", .metavar = "simple_update|multipart_push"},
                    {.name = "apply", .metavar = "immediate|on_reset|ac_power_cycle"},
                    {.name = "min-from-version", .metavar = "VERSION"},
                    {.name = "allow-downgrade", .takesValue = false},
                    {.name = "simple-update-fallback", .takesValue = false},
                    {.name = "estimated-seconds", .metavar = "N"}},
        .summary = "upload a firmware file into the store and register it as a package"},
       uploadPackage},
      {{.group = "firmware",
        .name = "packages list",
        .options = {{.name = "name", .metavar = "NAME"},
                    {.name = "component", .metavar = "COMPONENT"},
                    {.name = "model", .metavar = "MODEL"},
                    {.name = "limit", .metavar = "N"},
                    {.name = "all", .takesValue = false}},
        .summary = "list firmware packages"},
       listPackages},
      {{.group = "firmware",
        .name = "compliance",
        .options = {{.name = "csv", .takesValue = false},
                    {.name = "by", .metavar = "site|rack|model"},
                    {.name = "site", .metavar = "S"},
                    {.name = "rack", .metavar = "R"},
                    {.name = "model", .metavar = "M"},
                    {.name = "baseline", .metavar = "NAME"},
                    {.name = "labels", .metavar = "KEY[,KEY...]"}},
        .summary = "every node's firmware against its baseline (or roll-ups --by site|rack|model)"},
       compliance},
  };
}

}  // namespace provisioner::cli

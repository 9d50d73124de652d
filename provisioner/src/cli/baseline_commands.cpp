// baseline apply | show | history: firmware baselines authored as files (YAML or JSON).
#include <fstream>
#include <sstream>

#include "file_digest.hpp"
#include "provisioner/cli/command.hpp"
#include "provisioner/cli/json_fields.hpp"
#include "provisioner/cli/table.hpp"

namespace provisioner::cli {
namespace {

using common::Result;
using nlohmann::json;

constexpr const char* kBaselinesPath = "/api/v1/baselines";

bool endsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string joined(const json& list) {
  std::string out;
  for (const auto& v : list.is_array() ? list : json::array()) {
    out += (out.empty() ? "" : ", ") + scalarText(v);
  }
  return out.empty() ? "-" : out;
}

std::string targetText(const json& side) {
  const json& t = objectField(side, "target");
  if (t.empty()) return "-";
  return text(t, "package") + " " + text(t, "version");
}

std::string matchText(const json& side) {
  const json& m = objectField(side, "match");
  if (m.contains("software_id")) return "software_id=" + text(m, "software_id");
  if (m.contains("pattern")) return "pattern=" + text(m, "pattern");
  return "-";
}

// "+ DGX H100 bmc: target dgx-bmc 24.10.1; accepted 24.09.17, 24.10.1"
// "~ DGX H100 bmc: target dgx-bmc 24.09.17 -> dgx-bmc 24.10.1; accepted ... -> ..."
std::string changeLine(const json& change) {
  const std::string kind = text(change, "change");
  const json& from = objectField(change, "from");
  const json& to = objectField(change, "to");
  std::string line = (kind == "added"     ? "+ "
                      : kind == "removed" ? "- "
                                          : "~ ") +
                     text(change, "model") + " " + text(change, "component");
  if (kind == "added") {
    return line + ": target " + targetText(to) + "; accepted " + joined(to["accepted"]);
  }
  if (kind == "removed") return line + ": no longer in the baseline";
  std::string parts;
  auto add = [&parts](const std::string& what, const std::string& a, const std::string& b) {
    if (a != b) parts += (parts.empty() ? "" : "; ") + what + " " + a + " -> " + b;
  };
  add("target", targetText(from), targetText(to));
  add("accepted", joined(from.value("accepted", json::array())),
      joined(to.value("accepted", json::array())));
  add("match", matchText(from), matchText(to));
  return line + ": " + parts;
}

void renderDiff(std::ostream& out, const json& diff) {
  for (const auto& change : arrayField(diff, "changes"))
    out << "  " << sanitize(changeLine(change)) << "\n";
  if (diff.value("description_changed", false)) out << "  ~ description\n";
}

Result<void> applyBaseline(CommandContext& ctx) {
  const std::string& file = ctx.invocation.positionals.at(0);
  PROV_ASSIGN(auto content, readFile(file));
  const bool dry_run = ctx.invocation.has("dry-run");
  Query query;
  if (dry_run) query.emplace_back("dry_run", "true");
  const std::string type = endsWith(file, ".json") ? "application/json" : "application/yaml";
  PROV_ASSIGN(auto reply, ctx.api->postBody(kBaselinesPath, query, std::move(content), type));
  if (ctx.json()) {
    printRawJson(ctx.out, reply);
    return common::success();
  }
  const json& r = reply.json;
  const std::string name = sanitize(text(r, "baseline"));
  const std::string status = text(r, "status");
  const std::string revision = text(r, "revision");
  if (status == "unchanged") {
    ctx.out << "Baseline " << name << ": unchanged (revision " << revision << ").\n";
    return common::success();
  }
  ctx.out << "Baseline " << name
          << (dry_run ? " (dry run): would create revision " : ": created revision ") << revision;
  if (!r["previous_revision"].is_null()) ctx.out << " (was " << text(r, "previous_revision") << ")";
  ctx.out << ".\n";
  renderDiff(ctx.out, objectField(r, "diff"));
  return common::success();
}

void renderBaseline(std::ostream& out, const json& revision) {
  const json& content = objectField(revision, "content");
  renderFields(out, {{"Name", text(revision, "baseline")},
                     {"Revision", text(revision, "revision")},
                     {"Digest", text(revision, "digest")},
                     {"Author", text(revision, "author")},
                     {"Created", text(revision, "created_at")},
                     {"Description", text(content, "description")}});
  Table table({"MODEL", "COMPONENT", "MATCH", "ACCEPTED", "TARGET"});
  const json& models = objectField(content, "models");
  for (const auto& [model, components] : models.items()) {
    for (const auto& [component, rule] : components.items()) {
      table.addRow({model, component, matchText(rule),
                    joined(rule.value("accepted", json::array())), targetText(rule)});
    }
  }
  out << "\n";
  table.render(out);
}

Result<void> showBaseline(CommandContext& ctx) {
  const std::string& name = ctx.invocation.positionals.at(0);
  std::string path = std::string(kBaselinesPath) + "/" + name;
  if (auto revision = ctx.invocation.option("revision")) {
    if (!isDecimalId(*revision)) {
      return common::fail(commandUsageError(ctx, "--revision must be a number"));
    }
    path += "/revisions/" + *revision;
  }
  PROV_ASSIGN(auto reply, ctx.api->getJson(path));
  if (ctx.json()) {
    printRawJson(ctx.out, reply);
  } else {
    renderBaseline(ctx.out, reply.json);
  }
  return common::success();
}

Result<void> baselineHistory(CommandContext& ctx) {
  const std::string& name = ctx.invocation.positionals.at(0);
  PROV_ASSIGN(auto reply,
              ctx.api->getJson(std::string(kBaselinesPath) + "/" + name + "/revisions"));
  if (ctx.json()) {
    printRawJson(ctx.out, reply);
    return common::success();
  }
  Table table({"REVISION", "DIGEST", "AUTHOR", "CREATED", "CHANGES"});
  for (const auto& r : arrayField(reply.json, "items")) {
    int added = 0, changed = 0, removed = 0;
    for (const auto& c : arrayField(objectField(r, "diff"), "changes")) {
      const std::string kind = text(c, "change");
      added += kind == "added" ? 1 : 0;
      changed += kind == "changed" ? 1 : 0;
      removed += kind == "removed" ? 1 : 0;
    }
    table.addRow({text(r, "revision"), text(r, "digest").substr(0, 12), text(r, "author"),
                  text(r, "created_at"),
                  "+" + std::to_string(added) + " ~" + std::to_string(changed) + " -" +
                      std::to_string(removed)});
  }
  table.render(ctx.out);
  return common::success();
}

}  // namespace

std::vector<Command> baselineCommands() {
  return {
      {{.group = "baseline",
        .name = "apply",
        .positionals = {"FILE"},
        .options = {{.name = "dry-run", .takesValue = false}},
        .summary = "apply a baseline file (YAML or JSON): prints the diff; a new revision only "
                   "when it changed"},
       applyBaseline},
      {{.group = "baseline",
        .name = "show",
        .positionals = {"NAME"},
        .options = {{.name = "revision", .metavar = "N"}},
        .summary = "show a baseline's latest (or --revision N) content"},
       showBaseline},
      {{.group = "baseline",
        .name = "history",
        .positionals = {"NAME"},
        .summary = "every revision of a baseline with what it changed"},
       baselineHistory},
  };
}

}  // namespace provisioner::cli

// nodes label ID key=value... key-...: set and remove a node's labels.
#include "provisioner/cli/command.hpp"
#include "provisioner/cli/json_fields.hpp"
#include "provisioner/cli/table.hpp"

namespace provisioner::cli {
namespace {

using common::Result;
using nlohmann::json;

// "key=value" sets, "key-" removes; anything else is a usage error naming the word.
Result<json> labelChanges(CommandContext& ctx) {
  json labels = json::object();
  const auto& words = ctx.invocation.positionals;
  for (std::size_t i = 1; i < words.size(); ++i) {
    const std::string& word = words[i];
    if (auto eq = word.find('='); eq != std::string::npos && eq > 0) {
      labels[word.substr(0, eq)] = word.substr(eq + 1);
    } else if (word.size() > 1 && word.back() == '-') {
      labels[word.substr(0, word.size() - 1)] = nullptr;
    } else {
      return common::fail(commandUsageError(ctx, "expected key=value or key-, got '" + word + "'"));
    }
  }
  if (labels.empty()) {
    return common::fail(commandUsageError(ctx, "give at least one key=value or key-"));
  }
  return labels;
}

Result<void> labelNode(CommandContext& ctx) {
  PROV_ASSIGN(auto id, idArgument(ctx, 0));
  PROV_ASSIGN(auto labels, labelChanges(ctx));
  PROV_ASSIGN(auto reply,
              ctx.api->patchJson("/api/v1/nodes/" + id + "/labels", json{{"labels", labels}}));
  if (ctx.json()) {
    printRawJson(ctx.out, reply);
    return common::success();
  }
  Table table({"KEY", "VALUE"});
  if (auto it = reply.json.find("labels"); it != reply.json.end() && it->is_object()) {
    for (const auto& [key, value] : it->items()) {
      table.addRow({key, value.is_string() ? value.get<std::string>() : value.dump()});
    }
  }
  ctx.out << "node " << id << " labels (" << table.rowCount() << ")\n";
  if (table.rowCount() > 0) table.render(ctx.out);
  return common::success();
}

}  // namespace

std::vector<Command> labelCommands() {
  return {
      {{.group = "nodes",
        .name = "label",
        .positionals = {"ID", "KEY=VALUE|KEY-"},
        .summary = "set (key=value) and remove (key-) a node's labels",
        .acceptsExtra = true,
        .extraMetavar = "KEY=VALUE|KEY-"},
       labelNode},
  };
}

}  // namespace provisioner::cli

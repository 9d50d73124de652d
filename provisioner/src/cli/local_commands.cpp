// version and help: the commands that never talk to the service.
#include <algorithm>
#include <sstream>

#include "provisioner/cli/command.hpp"
#include "provisioner/cli/config.hpp"
#include "provisioner/cli/ctl.hpp"
#include "provisioner/cli/errors.hpp"

namespace provisioner::cli {
namespace {

using common::Result;

constexpr const char* kGlobalHelp = R"(global flags (anywhere on the line):
  --url URL       service URL; else $PROVISIONER_URL, the config file, http://127.0.0.1:8080
  --token TOKEN   API token; else $PROVISIONER_TOKEN, the config file
  --config FILE   config file {"url": ..., "token": ...};
                  default $XDG_CONFIG_HOME/provisioner/ctl.json or ~/.config/provisioner/ctl.json
  --json          print the server's JSON instead of tables
  --help, -h      show the usage of a command
exit codes: 0 ok, 1 the server refused, 2 the server is unreachable, 64 usage, 78 configuration
)";

std::string fullHelp(std::span<const CommandSpec> specs) {
  std::ostringstream out;
  out << kProgramName << ": the command-line client of the GPU provisioning service\n\n"
      << "usage: " << kProgramName << " " << kGlobalSynopsis << " COMMAND [ARGS]\n\ncommands:\n";
  for (const auto& spec : specs) {
    out << "  " << spec.synopsis() << "\n      " << spec.summary << '\n';
  }
  out << '\n' << kGlobalHelp;
  return out.str();
}

Result<void> showVersion(CommandContext& ctx) {
  ctx.out << kProgramName << ' ' << kCtlVersion << '\n';
  return common::success();
}

// help [GROUP [NAME]]: everything, one group, or one command.
Result<void> showHelp(CommandContext& ctx) {
  const auto& words = ctx.invocation.positionals;
  if (words.empty()) {
    ctx.out << fullHelp(ctx.specs);
    return common::success();
  }
  std::string name;  // the words after the group ("packages upload")
  for (std::size_t i = 1; i < words.size(); ++i) name += (i > 1 ? " " : "") + words[i];
  for (const auto& spec : ctx.specs) {
    bool sameName = words.size() == 1 ? spec.name.empty() : spec.name == name;
    if (spec.group == words[0] && sameName) {
      ctx.out << spec.usage() << "\n  " << spec.summary << '\n';
      return common::success();
    }
  }
  bool isGroup = std::any_of(ctx.specs.begin(), ctx.specs.end(),
                             [&words](const CommandSpec& spec) { return spec.group == words[0]; });
  if (words.size() == 1 && isGroup) {
    ctx.out << groupUsage(ctx.specs, words[0]) << '\n';
    return common::success();
  }
  std::string asked = words[0] + (name.empty() ? "" : " " + name);
  return common::fail(usageError("no such command: " + asked, groupUsage(ctx.specs, "")));
}

}  // namespace

std::vector<Command> localCommands() {
  return {
      {{.group = "version", .summary = "print the provisionerctl version"}, showVersion, false},
      {{.group = "help", .summary = "show this help, or a command's usage", .acceptsExtra = true},
       showHelp,
       false},
  };
}

}  // namespace provisioner::cli

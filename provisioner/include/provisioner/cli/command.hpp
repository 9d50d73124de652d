// The command table: what each provisionerctl command accepts and the function that runs it.
#pragma once

#include <ostream>
#include <span>
#include <vector>

#include "common/result.hpp"
#include "provisioner/cli/api_client.hpp"
#include "provisioner/cli/args.hpp"

namespace provisioner::cli {

struct Command;

// What a handler gets. `api` is null for commands that do not talk to the service.
struct CommandContext {
  const Invocation& invocation;
  ApiClient* api;
  std::ostream& out;
  std::ostream& err;
  std::span<const CommandSpec> specs;  // the whole table, for `help`
  const CommandSpec& spec;             // the command being run, for usage errors

  bool json() const { return invocation.globals.json; }
};

using Handler = common::Result<void> (*)(CommandContext& context);

struct Command {
  CommandSpec spec{};
  Handler handler = nullptr;
  bool needsApi = true;
};

// One function per command group; each file owns its group.
std::vector<Command> poCommands();
std::vector<Command> assetCommands();
std::vector<Command> nodeCommands();
std::vector<Command> labelCommands();     // nodes label
std::vector<Command> baselineCommands();  // baseline apply|show|history
std::vector<Command> firmwareCommands();  // firmware packages upload|list, firmware compliance
std::vector<Command> auditCommands();
std::vector<Command> tokenCommands();
std::vector<Command> imageCommands();
std::vector<Command> burnInCommands();
std::vector<Command> lifecycleCommands();     // nodes timeline|retry|quarantine|release|rerun, runs
std::vector<Command> discoveryCommands();     // discovery lease|sweep|manifest|list
std::vector<Command> campaignCommands();      // campaign create|plan|start|...|show|watch
std::vector<Command> decommissionCommands();  // nodes decommission|decommissions, decommissions
std::vector<Command> certificateCommands();   // certificates get|list|public-key
std::vector<Command> dispositionCommands();   // asset disposition, po end-of-life
std::vector<Command> flagCommands();          // health flags|acknowledge|clear
std::vector<Command> localCommands();         // version, help

// A usage error for the running command, e.g. a flag value that is not a number.
common::Error commandUsageError(const CommandContext& context, std::string message);

// True for a non-empty string of ASCII digits: node and token ids.
bool isDecimalId(const std::string& text);

// Writes a reply's JSON body as the server sent it, ending in a newline.
void printRawJson(std::ostream& out, const ApiReply& reply);

// The reply's raw JSON with --json, else `line`.
common::Result<void> printed(CommandContext& context, const ApiReply& reply,
                             const std::string& line);

// Positional `index` as a decimal id, else a usage error.
common::Result<std::string> idArgument(CommandContext& context, std::size_t index);

}  // namespace provisioner::cli

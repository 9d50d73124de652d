#include "provisioner/cli/ctl.hpp"

#include <exception>
#include <optional>

#include "provisioner/cli/api_client.hpp"
#include "provisioner/cli/command.hpp"
#include "provisioner/cli/errors.hpp"

namespace provisioner::cli {
namespace {

constexpr int kExitSoftware = 70;  // EX_SOFTWARE: a bug, never bad input

std::vector<Command> allCommands() {
  std::vector<Command> all;
  for (auto group :
       {poCommands(), assetCommands(), nodeCommands(), labelCommands(), auditCommands(),
        tokenCommands(), imageCommands(), burnInCommands(), lifecycleCommands(),
        discoveryCommands(), baselineCommands(), firmwareCommands(), campaignCommands(),
        decommissionCommands(), certificateCommands(), dispositionCommands(), flagCommands(),
        localCommands()}) {
    for (auto& command : group) all.push_back(std::move(command));
  }
  return all;
}

int report(std::ostream& err, const common::Error& error) {
  err << formatError(error) << '\n';
  return exitCodeFor(error);
}

// --help anywhere: runs `help` with the words that named the command.
int runHelp(const std::vector<Command>& commands, const std::vector<CommandSpec>& specs,
            const Invocation& asked, std::ostream& out, std::ostream& err) {
  std::size_t helpIndex = 0;
  while (specs[helpIndex].group != "help") ++helpIndex;
  Invocation help;
  help.command = helpIndex;
  help.positionals = asked.commandWords;
  CommandContext context{help, nullptr, out, err, specs, specs[helpIndex]};
  auto result = commands[helpIndex].handler(context);
  return result ? kExitOk : report(err, result.error());
}

common::Result<ApiClient> connect(const GlobalOptions& flags, const Environment& env) {
  auto config = resolveConfig(flags, env);
  PROV_TRY(config);
  auto endpoint = parseEndpoint(config->url);
  PROV_TRY(endpoint);
  return ApiClient(ClientSettings{std::move(*endpoint), std::move(config->token)});
}

int dispatch(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
             const Environment& env) {
  const auto commands = allCommands();
  std::vector<CommandSpec> specs;
  specs.reserve(commands.size());
  for (const auto& command : commands) specs.push_back(command.spec);

  auto invocation = parseArgs(args, specs);
  if (!invocation) return report(err, invocation.error());
  if (invocation->globals.help) return runHelp(commands, specs, *invocation, out, err);

  const std::size_t index = invocation->command.value();
  std::optional<ApiClient> api;
  if (commands[index].needsApi) {
    auto client = connect(invocation->globals, env);
    if (!client) return report(err, client.error());
    api.emplace(std::move(*client));
  }
  CommandContext context{*invocation, api ? &*api : nullptr, out, err, specs, specs[index]};
  auto result = commands[index].handler(context);
  return result ? kExitOk : report(err, result.error());
}

}  // namespace

int runCtl(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
           const Environment& env) {
  // Handlers return errors as values; this only keeps a bug from ending in std::terminate.
  try {
    return dispatch(args, out, err, env);
  } catch (const std::exception& e) {
    err << "error: internal error in " << kProgramName << ": " << e.what() << '\n';
    return kExitSoftware;
  }
}

}  // namespace provisioner::cli

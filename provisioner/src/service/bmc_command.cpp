#include "bmc_command.hpp"

#include <sstream>

#include "bmc/call.hpp"
#include "bmc/flags.hpp"

namespace provisioner::service {
namespace {

using bmc::Subcommand;

constexpr std::string_view kConnection =
    "--url URL --username USER --password PASSWORD\n"
    "[--ca FILE | --pin SHA256 | --insecure]";

const std::vector<const Subcommand*>& subcommands() {
  static const std::vector<const Subcommand*> all = {
      &bmc::inventoryCommand(), &bmc::powerCommand(),  &bmc::bootCommand(), &bmc::biosCommand(),
      &bmc::firmwareCommand(),  &bmc::updateCommand(), &bmc::tasksCommand()};
  return all;
}

const Subcommand* findSubcommand(const std::string& name) {
  for (const auto* command : subcommands()) {
    if (command->name == name) return command;
  }
  return nullptr;
}

// `text`'s lines, the first after `lead` and the rest indented to line up under it.
std::string hanging(std::string_view lead, std::string_view text) {
  std::ostringstream out;
  out << lead;
  std::size_t start = 0;
  while (start <= text.size()) {
    auto end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    if (start > 0) out << "\n" << std::string(lead.size(), ' ');
    out << text.substr(start, end - start);
    start = end + 1;
  }
  out << "\n";
  return out.str();
}

std::string usage() {
  std::ostringstream out;
  out << hanging("usage: provisioner bmc COMMAND ", std::string(kConnection) + " [FLAGS]");
  out << "\none operation on one BMC: JSON on stdout, errors on stderr\n\ncommands:\n";
  for (const auto* command : subcommands()) {
    std::string line = "  " + std::string(command->name);
    if (!command->synopsis.empty()) line += " " + std::string(command->synopsis);
    out << line << "\n" << hanging(std::string(6, ' '), command->summary);
  }
  out << "\nexit codes: 0 done, 1 the BMC failed or refused (the reason on stderr), 2 bad usage\n";
  return out.str();
}

std::string usage(const Subcommand& command) {
  std::string flags = std::string(kConnection);
  if (!command.synopsis.empty()) flags += "\n" + std::string(command.synopsis);
  return hanging("usage: provisioner bmc " + std::string(command.name) + " ", flags) +
         hanging("       ", command.summary);
}

int usageError(std::ostream& err, const std::string& problem, const std::string& text) {
  err << "error: " << problem << "\n" << text;
  return kBmcExitUsage;
}

}  // namespace

int runBmcCommand(std::vector<std::string> args, std::ostream& out, std::ostream& err,
                  BmcConnector connect, BmcCommandOptions options) {
  if (args.empty()) return usageError(err, "no command", usage());
  if (args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    out << usage();
    return kBmcExitDone;
  }
  const Subcommand* command = findSubcommand(args[0]);
  if (command == nullptr) return usageError(err, "unknown bmc command " + args[0], usage());
  bmc::ParsedFlags flags;
  auto problem = bmc::parseFlags(args, command->flags, flags);
  if (flags.help) {
    out << usage(*command);
    return kBmcExitDone;
  }
  if (problem.empty() && command->check != nullptr) problem = command->check(flags);
  if (!problem.empty()) return usageError(err, problem, usage(*command));
  auto client = connect(flags.connect);
  if (!client) {
    err << "error: cannot connect to " << flags.connect.url << "\n";
    return kBmcExitFailed;
  }
  bmc::BmcCall call{client, flags, out, err, options};
  return command->run(call);
}

}  // namespace provisioner::service

// Command-line parsing for provisionerctl: global flags, the command table's shapes, and usage.
#pragma once

#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "common/result.hpp"

namespace provisioner::cli {

struct OptionSpec {
  std::string name{};     // without the leading "--"
  std::string metavar{};  // the value's placeholder in usage ("PO_NUMBER"); empty: upper-cased name
  bool takesValue = true;
  bool required = false;
};

// What one command accepts. `group` is the first word ("po"), `name` the second ("import") or
// empty for one-word commands ("audit").
struct CommandSpec {
  std::string group{};
  std::string name{};
  std::vector<std::string> positionals{};  // required, in order: {"FILE.csv"}
  std::vector<OptionSpec> options{};
  std::string summary{};         // one line for `help`
  bool acceptsExtra = false;     // extra positionals allowed (`help po import`)
  std::string extraMetavar{};    // how usage names the extras; empty: "COMMAND"
  std::string synopsis() const;  // "po import FILE.csv --po PO_NUMBER --vendor VENDOR"
  std::string usage() const;     // "usage: provisionerctl [global flags] <synopsis>"
};

// Flags valid before or after any command.
struct GlobalOptions {
  std::optional<std::string> url;
  std::optional<std::string> token;
  std::optional<std::string> config;
  bool json = false;
  bool help = false;
};

struct Invocation {
  GlobalOptions globals;
  std::optional<std::size_t> command;     // index into the spec table; empty: no command given
  std::vector<std::string> commandWords;  // the words that named it: {"po", "import"}, or {"po"}
  std::vector<std::string> positionals;
  std::map<std::string, std::string> options;  // a flag without value maps to ""

  bool has(const std::string& name) const { return options.contains(name); }
  std::optional<std::string> option(const std::string& name) const;
};

inline constexpr const char* kProgramName = "provisionerctl";
inline constexpr const char* kGlobalSynopsis =
    "[--url URL] [--token TOKEN] [--config FILE] [--json]";

// Parses `args` (without the program name) against `commands`. A usage problem is an Error with
// code kUsageErrorCode whose detail holds the usage text to show.
common::Result<Invocation> parseArgs(const std::vector<std::string>& args,
                                     std::span<const CommandSpec> commands);

// The usage text for a whole group ("po") or for every command when `group` is empty.
std::string groupUsage(std::span<const CommandSpec> commands, const std::string& group);

}  // namespace provisioner::cli

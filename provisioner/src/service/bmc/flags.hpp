// Flag parsing for every `provisioner bmc` subcommand, in one place: the connection flags
// (--url, --username, --password, --ca | --pin | --insecure) and each subcommand's own, declared
// as a FlagSpec. `--flag value` and `--flag=value` both work.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "../bmc_command.hpp"

namespace provisioner::service::bmc {

// The flags one subcommand takes besides the connection flags.
struct FlagSpec {
  std::vector<std::string> valued;    // --name VALUE, at most once
  std::vector<std::string> repeated;  // --name VALUE, any number of times
  std::vector<std::string> switches;  // --name, no value
};

struct ParsedFlags {
  BmcConnectOptions connect;
  std::map<std::string, std::vector<std::string>> values;  // the subcommand's valued flags
  std::vector<std::string> switches;                       // the subcommand's switches given
  bool help = false;                                       // --help or -h

  // A switch given, or a valued flag given at least once.
  bool has(const std::string& flag) const;
  // The (last) value of a valued flag.
  std::optional<std::string> value(const std::string& flag) const;
  // Every value of a repeated flag, in order.
  std::vector<std::string> all(const std::string& flag) const;
};

// `args[0]` is the subcommand; the rest are flags. Fills `out` and returns the problem
// ("unknown flag --bogus", "--url must be ..."), or "" when all is well (or --help was asked).
// A problem names flags, never values: one of them may be a password.
std::string parseFlags(const std::vector<std::string>& args, const FlagSpec& spec,
                       ParsedFlags& out);

}  // namespace provisioner::service::bmc

#include "provisioner/cli/args.hpp"

#include <algorithm>
#include <cctype>

#include "provisioner/cli/errors.hpp"

namespace provisioner::cli {
namespace {

using common::Result;

struct GlobalFlag {
  const char* name;
  bool takesValue;
};
constexpr GlobalFlag kGlobalFlags[] = {
    {"url", true}, {"token", true}, {"config", true}, {"json", false}, {"help", false}};

const GlobalFlag* findGlobal(const std::string& name) {
  for (const auto& flag : kGlobalFlags) {
    if (name == flag.name) return &flag;
  }
  return nullptr;
}

const OptionSpec* findOption(const CommandSpec& spec, const std::string& name) {
  auto it = std::find_if(spec.options.begin(), spec.options.end(),
                         [&name](const OptionSpec& o) { return o.name == name; });
  return it == spec.options.end() ? nullptr : &*it;
}

void setGlobal(GlobalOptions& globals, const std::string& name, std::string value) {
  if (name == "url") {
    globals.url = std::move(value);
  } else if (name == "token") {
    globals.token = std::move(value);
  } else if (name == "config") {
    globals.config = std::move(value);
  } else if (name == "json") {
    globals.json = true;
  } else if (name == "help") {
    globals.help = true;
  }
}

// Walks the arguments once; the command is known as soon as its words have been seen, so its
// flags are accepted only after them while global flags go anywhere.
class Parser {
 public:
  Parser(const std::vector<std::string>& args, std::span<const CommandSpec> commands)
      : args_(args), commands_(commands) {}

  Result<Invocation> run() {
    for (pos_ = 0; pos_ < args_.size(); ++pos_) {
      const std::string& arg = args_[pos_];
      if (arg == "--") {
        for (++pos_; pos_ < args_.size(); ++pos_) PROV_TRY(positional(args_[pos_]));
        break;
      }
      if (arg == "-h") {
        inv_.globals.help = true;
      } else if (arg.size() > 2 && arg.starts_with("--")) {
        PROV_TRY(flag(arg.substr(2)));
      } else if (arg.size() > 1 && arg[0] == '-') {
        return common::fail(usage("unknown flag " + arg));
      } else {
        PROV_TRY(positional(arg));
      }
    }
    PROV_TRY(finish());
    return std::move(inv_);
  }

 private:
  const CommandSpec* command() const { return inv_.command ? &commands_[*inv_.command] : nullptr; }

  common::Error usage(std::string message) const {
    std::string text;
    if (command() != nullptr) {
      text = command()->usage();
    } else {
      text = groupUsage(commands_, group_);
    }
    return usageError(std::move(message), std::move(text));
  }

  Result<std::string> takeValue(const std::string& name, std::optional<std::string> givenValue) {
    if (givenValue) return std::move(*givenValue);
    if (pos_ + 1 >= args_.size() || args_[pos_ + 1].starts_with("--")) {
      return common::fail(usage("missing value for --" + name));
    }
    return args_[++pos_];
  }

  Result<void> flag(const std::string& body) {
    auto eq = body.find('=');
    std::string name = body.substr(0, eq);
    std::optional<std::string> inlineValue;
    if (eq != std::string::npos) inlineValue = body.substr(eq + 1);

    bool takesValue = false;
    const GlobalFlag* global = findGlobal(name);
    const OptionSpec* option = command() ? findOption(*command(), name) : nullptr;
    if (global != nullptr) {
      takesValue = global->takesValue;
    } else if (option != nullptr) {
      takesValue = option->takesValue;
    } else {
      return common::fail(usage("unknown flag --" + name));
    }
    std::string value;
    if (takesValue) {
      auto taken = takeValue(name, std::move(inlineValue));
      PROV_TRY(taken);
      value = std::move(*taken);
    } else if (inlineValue) {
      return common::fail(usage("flag --" + name + " takes no value"));
    }
    if (global != nullptr) {
      setGlobal(inv_.globals, name, std::move(value));
    } else {
      inv_.options[name] = std::move(value);
    }
    return common::success();
  }

  Result<void> positional(const std::string& word) {
    if (command() != nullptr) {
      inv_.positionals.push_back(word);
      return common::success();
    }
    inv_.commandWords.push_back(word);
    if (group_.empty()) {
      group_ = word;
      if (!selectCommand(word, "") && !hasGroup(word)) {
        group_.clear();
        return common::fail(usage("unknown command '" + word + "'"));
      }
      return common::success();
    }
    // Names may be several words ("packages upload"): collect words while a name starts so.
    const std::string name = pending_.empty() ? word : pending_ + " " + word;
    if (selectCommand(group_, name)) {
      pending_.clear();
      return common::success();
    }
    if (hasNamePrefix(group_, name + " ")) {
      pending_ = name;
      return common::success();
    }
    return common::fail(usage("unknown command '" + group_ + " " + name + "'"));
  }

  bool hasNamePrefix(const std::string& group, const std::string& prefix) const {
    return std::any_of(commands_.begin(), commands_.end(), [&](const CommandSpec& c) {
      return c.group == group && c.name.compare(0, prefix.size(), prefix) == 0;
    });
  }

  bool hasGroup(const std::string& group) const {
    return std::any_of(commands_.begin(), commands_.end(),
                       [&group](const CommandSpec& c) { return c.group == group; });
  }

  bool selectCommand(const std::string& group, const std::string& name) {
    for (std::size_t i = 0; i < commands_.size(); ++i) {
      if (commands_[i].group == group && commands_[i].name == name) {
        inv_.command = i;
        return true;
      }
    }
    return false;
  }

  // Arity and required flags are checked last, and not at all for --help.
  Result<void> finish() const {
    if (inv_.globals.help) return common::success();
    if (command() == nullptr) {
      if (group_.empty()) return common::fail(usage("no command given"));
      const std::string named = pending_.empty() ? group_ : group_ + " " + pending_;
      return common::fail(usage("'" + named + "' needs a subcommand"));
    }
    const CommandSpec& spec = *command();
    if (inv_.positionals.size() < spec.positionals.size()) {
      return common::fail(usage("missing " + spec.positionals[inv_.positionals.size()]));
    }
    if (!spec.acceptsExtra && inv_.positionals.size() > spec.positionals.size()) {
      return common::fail(
          usage("unexpected argument '" + inv_.positionals[spec.positionals.size()] + "'"));
    }
    for (const auto& option : spec.options) {
      if (option.required && !inv_.has(option.name)) {
        return common::fail(usage("missing required flag --" + option.name));
      }
    }
    return common::success();
  }

  const std::vector<std::string>& args_;
  std::span<const CommandSpec> commands_;
  std::size_t pos_ = 0;
  std::string group_;
  std::string pending_;  // the first words of a several-word command name
  Invocation inv_;
};

std::string optionSynopsis(const OptionSpec& option) {
  std::string text = "--" + option.name;
  if (option.takesValue) {
    std::string metavar = option.metavar;
    if (metavar.empty()) {
      for (unsigned char c : option.name)
        metavar += c == '-' ? '_' : static_cast<char>(std::toupper(c));
    }
    text += " " + metavar;
  }
  return option.required ? text : "[" + text + "]";
}

}  // namespace

std::optional<std::string> Invocation::option(const std::string& name) const {
  auto it = options.find(name);
  if (it == options.end()) return std::nullopt;
  return it->second;
}

std::string CommandSpec::synopsis() const {
  std::string text = group;
  if (!name.empty()) text += " " + name;
  for (const auto& p : positionals) text += " " + p;
  for (const auto& o : options) text += " " + optionSynopsis(o);
  if (acceptsExtra) text += " [" + (extraMetavar.empty() ? "COMMAND" : extraMetavar) + "...]";
  return text;
}

std::string CommandSpec::usage() const {
  return std::string("usage: ") + kProgramName + " [global flags] " + synopsis();
}

std::string groupUsage(std::span<const CommandSpec> commands, const std::string& group) {
  std::string text =
      std::string("usage: ") + kProgramName + " " + kGlobalSynopsis + " COMMAND [ARGS]";
  if (group.empty()) return text + "\nrun '" + kProgramName + " help' for the commands";
  text = "usage:";
  for (const auto& spec : commands) {
    if (spec.group == group) text += std::string("\n  ") + kProgramName + " " + spec.synopsis();
  }
  return text;
}

Result<Invocation> parseArgs(const std::vector<std::string>& args,
                             std::span<const CommandSpec> commands) {
  return Parser(args, commands).run();
}

}  // namespace provisioner::cli

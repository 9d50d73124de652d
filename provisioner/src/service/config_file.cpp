#include "provisioner/service/config_file.hpp"

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "provisioner/service/options.hpp"

namespace provisioner::service {
namespace {

using common::invalidArgument;

// Command arguments, not settings: they stay on the command line (the health clock's too: a
// simulated fleet's, never an installed service's).
const std::set<std::string> kNotSettings{
    "--config", "--name", "--role", "--as-of", "--health-time-scale", "--health-clock-epoch"};

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

common::Error lineError(const std::string& source, int line, const std::string& what,
                        const std::string& key) {
  return invalidArgument("invalid_config", source + ":" + std::to_string(line) + ": " + what, key);
}

// "token create" style commands take two words.
std::size_t commandWords(const std::vector<std::string>& args) {
  if (args.empty()) return 0;
  return (args[0] == "token" && args.size() > 1) ? 2 : 1;
}

}  // namespace

common::Result<std::vector<std::string>> configFileFlags(std::string_view text,
                                                         const std::string& source) {
  std::map<std::string, bool> known;  // flag -> is a switch
  for (const auto& [flag, is_switch] : serviceFlags()) {
    if (kNotSettings.count(flag) == 0) known[flag] = is_switch;
  }
  std::vector<std::string> flags;
  std::set<std::string> seen;
  int number = 0;
  std::istringstream in{std::string(text)};
  for (std::string raw; std::getline(in, raw);) {
    ++number;
    const std::string_view line = trim(raw);
    if (line.empty() || line.front() == '#') continue;
    const auto eq = line.find('=');
    if (eq == std::string_view::npos) {
      return common::fail(lineError(source, number, "expected `key = value`", ""));
    }
    const std::string key(trim(line.substr(0, eq)));
    std::string_view value = trim(line.substr(eq + 1));
    if (value.size() >= 2 && value.front() == '"' && value.back() == '"') {
      value = value.substr(1, value.size() - 2);
    }
    const std::string flag = "--" + key;
    auto it = known.find(flag);
    if (key.empty() || it == known.end()) {
      return common::fail(lineError(source, number, "unknown setting '" + key + "'", key));
    }
    if (!seen.insert(key).second) {
      return common::fail(lineError(source, number, "'" + key + "' is set twice", key));
    }
    if (it->second) {
      if (value == "true") {
        flags.push_back(flag);
      } else if (value != "false") {
        return common::fail(lineError(source, number, key + " must be true or false", key));
      }
      continue;
    }
    flags.push_back(flag + "=" + std::string(value));
  }
  return flags;
}

std::vector<std::string> mergeConfigFlags(const std::vector<std::string>& args,
                                          const std::vector<std::string>& file_flags) {
  const auto head = static_cast<std::ptrdiff_t>(commandWords(args));
  std::vector<std::string> out(args.begin(), args.begin() + head);
  out.insert(out.end(), file_flags.begin(), file_flags.end());
  out.insert(out.end(), args.begin() + head, args.end());
  return out;
}

common::Result<std::vector<std::string>> withConfigFile(const std::vector<std::string>& args,
                                                        const std::string& default_path) {
  std::string path;
  bool explicit_file = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--config" && i + 1 < args.size()) {
      path = args[i + 1];
      explicit_file = true;
    } else if (args[i].rfind("--config=", 0) == 0) {
      path = args[i].substr(9);
      explicit_file = true;
    }
  }
  std::error_code ec;
  if (!explicit_file) {
    if (default_path.empty() || !std::filesystem::exists(default_path, ec)) return args;
    path = default_path;
  }
  std::ifstream in(path);
  if (!in) {
    return common::fail(invalidArgument("invalid_config", "cannot read " + path, "--config"));
  }
  std::stringstream text;
  text << in.rdbuf();
  PROV_ASSIGN(auto flags, configFileFlags(text.str(), path));
  return mergeConfigFlags(args, flags);
}

}  // namespace provisioner::service

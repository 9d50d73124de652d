// Where provisionerctl finds the service URL and its token: flags, then environment, then file.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>

#include "common/result.hpp"
#include "provisioner/cli/args.hpp"

namespace provisioner::cli {

inline constexpr const char* kDefaultUrl = "http://127.0.0.1:8080";
inline constexpr const char* kUrlVariable = "PROVISIONER_URL";
inline constexpr const char* kTokenVariable = "PROVISIONER_TOKEN";

// The process environment as a value, so tests can hand in their own.
struct Environment {
  std::map<std::string, std::string> variables;

  // The variable's value; an empty value counts as unset.
  std::optional<std::string> get(const std::string& name) const;
  // Captures the variables provisionerctl reads from the real environment.
  static Environment fromProcess();
};

struct Config {
  std::string url;
  std::string token;  // never printed
};

// $XDG_CONFIG_HOME/provisioner/ctl.json, else $HOME/.config/provisioner/ctl.json.
std::optional<std::string> defaultConfigPath(const Environment& env);

// Reads a whole file, or nullopt when it cannot be opened. The test seam for resolveConfig.
using FileReader = std::function<std::optional<std::string>(const std::string& path)>;
std::optional<std::string> readWholeFile(const std::string& path);

// Resolves url and token field by field: flag > environment > config file > default URL.
// An explicit --config must exist; the default file may be absent. No token is an error.
common::Result<Config> resolveConfig(const GlobalOptions& flags, const Environment& env,
                                     const FileReader& readFile = readWholeFile);

}  // namespace provisioner::cli

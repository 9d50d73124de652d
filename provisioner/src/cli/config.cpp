#include "provisioner/cli/config.hpp"

#include <cstdlib>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "provisioner/cli/errors.hpp"

namespace provisioner::cli {
namespace {

using common::Result;

constexpr const char* kEnvironmentNames[] = {kUrlVariable, kTokenVariable, "XDG_CONFIG_HOME",
                                             "HOME"};

struct FileConfig {
  std::optional<std::string> url;
  std::optional<std::string> token;
};

Result<std::optional<std::string>> stringMember(const nlohmann::json& doc, const char* key,
                                                const std::string& path) {
  auto it = doc.find(key);
  if (it == doc.end() || it->is_null()) return std::optional<std::string>{};
  if (!it->is_string()) {
    return common::fail(configError("config file " + path + ": \"" + key + "\" must be a string"));
  }
  auto value = it->get<std::string>();
  if (value.empty()) return std::optional<std::string>{};
  return std::optional<std::string>{std::move(value)};
}

// A missing file is fine unless it was named explicitly; a present one must be a JSON object.
Result<FileConfig> readConfigFile(const std::string& path, bool mustExist,
                                  const FileReader& readFile) {
  auto content = readFile(path);
  if (!content) {
    if (!mustExist) return FileConfig{};
    return common::fail(configError("cannot read config file " + path));
  }
  auto doc = nlohmann::json::parse(*content, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object()) {
    return common::fail(configError("config file " + path +
                                    " is not a JSON object like {\"url\": ..., \"token\": ...}"));
  }
  auto url = stringMember(doc, "url", path);
  PROV_TRY(url);
  auto token = stringMember(doc, "token", path);
  PROV_TRY(token);
  return FileConfig{std::move(*url), std::move(*token)};
}

}  // namespace

std::optional<std::string> Environment::get(const std::string& name) const {
  auto it = variables.find(name);
  if (it == variables.end() || it->second.empty()) return std::nullopt;
  return it->second;
}

Environment Environment::fromProcess() {
  Environment env;
  for (const char* name : kEnvironmentNames) {
    if (const char* value = std::getenv(name); value != nullptr) env.variables[name] = value;
  }
  return env;
}

std::optional<std::string> defaultConfigPath(const Environment& env) {
  if (auto xdg = env.get("XDG_CONFIG_HOME")) return *xdg + "/provisioner/ctl.json";
  if (auto home = env.get("HOME")) return *home + "/.config/provisioner/ctl.json";
  return std::nullopt;
}

std::optional<std::string> readWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

Result<Config> resolveConfig(const GlobalOptions& flags, const Environment& env,
                             const FileReader& readFile) {
  std::optional<std::string> url = flags.url ? flags.url : env.get(kUrlVariable);
  std::optional<std::string> token = flags.token ? flags.token : env.get(kTokenVariable);

  // The file is read only when it can still contribute, or when it was named explicitly.
  std::optional<std::string> path = flags.config ? flags.config : defaultConfigPath(env);
  if (path && (flags.config || !url || !token)) {
    auto file = readConfigFile(*path, flags.config.has_value(), readFile);
    PROV_TRY(file);
    if (!url) url = file->url;
    if (!token) token = file->token;
  }
  if (!token || token->empty()) {
    return common::fail(configError(std::string("no API token: pass --token, set ") +
                                    kTokenVariable + ", or put \"token\" in " +
                                    path.value_or("$XDG_CONFIG_HOME/provisioner/ctl.json")));
  }
  return Config{url.value_or(kDefaultUrl), std::move(*token)};
}

}  // namespace provisioner::cli

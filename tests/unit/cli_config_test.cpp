#include <catch2/catch.hpp>

#include <map>

#include "provisioner/cli/config.hpp"
#include "provisioner/cli/errors.hpp"
#include "provisioner/cli/url.hpp"

using namespace provisioner::cli;

namespace {

// An in-memory file system for the config seam.
FileReader filesOf(std::map<std::string, std::string> files) {
  return [files = std::move(files)](const std::string& path) -> std::optional<std::string> {
    auto it = files.find(path);
    if (it == files.end()) return std::nullopt;
    return it->second;
  };
}

const std::string kXdgFile = "/xdg/provisioner/ctl.json";

Environment envWith(std::map<std::string, std::string> vars) {
  vars.emplace("XDG_CONFIG_HOME", "/xdg");
  return Environment{std::move(vars)};
}

}  // namespace

TEST_CASE("config: flag beats environment beats file", "[unit][cli]") {
  auto files = filesOf({{kXdgFile, R"({"url": "http://file:1", "token": "file-token"})"}});

  GlobalOptions flags;
  flags.url = "http://flag:1";
  flags.token = "flag-token";
  auto env = envWith({{"PROVISIONER_URL", "http://env:1"}, {"PROVISIONER_TOKEN", "env-token"}});
  auto fromFlags = resolveConfig(flags, env, files);
  REQUIRE(fromFlags.ok());
  CHECK(fromFlags->url == "http://flag:1");
  CHECK(fromFlags->token == "flag-token");

  auto fromEnv = resolveConfig(GlobalOptions{}, env, files);
  REQUIRE(fromEnv.ok());
  CHECK(fromEnv->url == "http://env:1");
  CHECK(fromEnv->token == "env-token");

  auto fromFile = resolveConfig(GlobalOptions{}, envWith({}), files);
  REQUIRE(fromFile.ok());
  CHECK(fromFile->url == "http://file:1");
  CHECK(fromFile->token == "file-token");
}

TEST_CASE("config: each field resolves on its own; default URL last", "[unit][cli]") {
  auto files = filesOf({{kXdgFile, R"({"token": "file-token"})"}});
  auto env = envWith({{"PROVISIONER_URL", "http://env:1"}});
  auto mixed = resolveConfig(GlobalOptions{}, env, files);
  REQUIRE(mixed.ok());
  CHECK(mixed->url == "http://env:1");
  CHECK(mixed->token == "file-token");

  GlobalOptions flags;
  flags.token = "t";
  auto defaults = resolveConfig(flags, Environment{}, filesOf({}));
  REQUIRE(defaults.ok());
  CHECK(defaults->url == "http://127.0.0.1:8080");
}

TEST_CASE("config: empty environment values count as unset", "[unit][cli]") {
  auto files = filesOf({{kXdgFile, R"({"token": "file-token"})"}});
  auto config = resolveConfig(GlobalOptions{}, envWith({{"PROVISIONER_TOKEN", ""}}), files);
  REQUIRE(config.ok());
  CHECK(config->token == "file-token");
}

TEST_CASE("config: file location from --config, XDG_CONFIG_HOME, then HOME", "[unit][cli]") {
  CHECK(defaultConfigPath(Environment{{{"XDG_CONFIG_HOME", "/x"}, {"HOME", "/h"}}}) ==
        "/x/provisioner/ctl.json");
  CHECK(defaultConfigPath(Environment{{{"HOME", "/h"}}}) == "/h/.config/provisioner/ctl.json");
  CHECK_FALSE(defaultConfigPath(Environment{}).has_value());

  GlobalOptions flags;
  flags.config = "/etc/ctl.json";
  auto files = filesOf(
      {{"/etc/ctl.json", R"({"token": "etc-token"})"}, {kXdgFile, R"({"token": "xdg-token"})"}});
  auto config = resolveConfig(flags, envWith({}), files);
  REQUIRE(config.ok());
  CHECK(config->token == "etc-token");
}

TEST_CASE("config: bad or missing files and no token are config errors", "[unit][cli]") {
  GlobalOptions explicitMissing;
  explicitMissing.config = "/nope.json";
  auto missing = resolveConfig(explicitMissing, Environment{}, filesOf({}));
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().message == "cannot read config file /nope.json");
  CHECK(exitCodeFor(missing.error()) == kExitConfig);

  auto malformed = resolveConfig(GlobalOptions{}, envWith({}), filesOf({{kXdgFile, "{token"}}));
  REQUIRE_FALSE(malformed.ok());
  CHECK(malformed.error().code == kConfigErrorCode);

  auto wrongType =
      resolveConfig(GlobalOptions{}, envWith({}), filesOf({{kXdgFile, R"({"token": 42})"}}));
  REQUIRE_FALSE(wrongType.ok());
  CHECK(wrongType.error().message == "config file " + kXdgFile + ": \"token\" must be a string");

  auto noToken = resolveConfig(GlobalOptions{}, envWith({}), filesOf({}));
  REQUIRE_FALSE(noToken.ok());
  CHECK(noToken.error().message ==
        "no API token: pass --token, set PROVISIONER_TOKEN, or put \"token\" in " + kXdgFile);
}

TEST_CASE("config: a token from flags or env does not need the file", "[unit][cli]") {
  GlobalOptions flags;
  flags.url = "http://u:1";
  flags.token = "t";
  auto config = resolveConfig(flags, envWith({}), filesOf({{kXdgFile, "not json"}}));
  REQUIRE(config.ok());
  CHECK(config->token == "t");
}

TEST_CASE("url: http and https endpoints, with port and path prefix", "[unit][cli]") {
  auto plain = parseEndpoint("http://127.0.0.1:8080");
  REQUIRE(plain.ok());
  CHECK(plain->schemeHostPort == "http://127.0.0.1:8080");
  CHECK(plain->pathPrefix.empty());

  auto tls = parseEndpoint("https://prov.example.com/gpu/");
  REQUIRE(tls.ok());
  CHECK(tls->schemeHostPort == "https://prov.example.com");
  CHECK(tls->pathPrefix == "/gpu");

  auto v6 = parseEndpoint("http://[::1]:9000");
  REQUIRE(v6.ok());
  CHECK(v6->schemeHostPort == "http://[::1]:9000");

  for (const char* bad :
       {"ftp://h", "127.0.0.1:8080", "http://", "http://h:99999", "http://h?x=1"}) {
    INFO(bad);
    auto parsed = parseEndpoint(bad);
    REQUIRE_FALSE(parsed.ok());
    CHECK(parsed.error().code == kConfigErrorCode);
  }
}

TEST_CASE("url: query values are percent-encoded", "[unit][cli]") {
  CHECK(percentEncode("PO 1/2&x") == "PO%201%2F2%26x");
  CHECK(withQuery("/api/v1/nodes", {{"rack", "R01"}, {"model", "DGX H100"}}) ==
        "/api/v1/nodes?rack=R01&model=DGX%20H100");
  CHECK(withQuery("/p", {}) == "/p");
}

#include <catch2/catch.hpp>

#include "provisioner/service/config_file.hpp"
#include "provisioner/service/options.hpp"

using provisioner::service::configFileFlags;
using provisioner::service::mergeConfigFlags;
using provisioner::service::parseServiceOptions;
using provisioner::service::serviceFlags;
using Strings = std::vector<std::string>;

TEST_CASE("config file: key = value lines become flags", "[config_file]") {
  auto flags = configFileFlags(R"(# provisioner.conf
listen = 0.0.0.0:8080
  state-dir=/var/lib/provisioner
public-url = "http://10.0.0.1:8080"

no-workflows = true
bmc-tls-insecure = false
)",
                               "test.conf");
  REQUIRE(flags.ok());
  CHECK(*flags == Strings{"--listen=0.0.0.0:8080", "--state-dir=/var/lib/provisioner",
                          "--public-url=http://10.0.0.1:8080", "--no-workflows"});
}

TEST_CASE("config file: mistakes name the file, line and key", "[config_file]") {
  auto unknown = configFileFlags("listen = a:1\nlisen = b:2\n", "/etc/p.conf");
  REQUIRE_FALSE(unknown.ok());
  CHECK(unknown.error().code == "invalid_config");
  CHECK(unknown.error().message == "/etc/p.conf:2: unknown setting 'lisen'");
  CHECK(unknown.error().field == "lisen");
  CHECK(configFileFlags("listen\n", "f").error().message == "f:1: expected `key = value`");
  CHECK(configFileFlags("listen = a:1\nlisten = b:2\n", "f").error().message ==
        "f:2: 'listen' is set twice");
  CHECK(configFileFlags("no-workflows = yes\n", "f").error().field == "no-workflows");
  // Command arguments are not settings.
  CHECK_FALSE(configFileFlags("role = admin\n", "f").ok());
  CHECK_FALSE(configFileFlags("config = /other.conf\n", "f").ok());
  CHECK_FALSE(configFileFlags("as-of = 2026-12-07\n", "f").ok());
  // A simulated fleet's health clock is never an installed service's setting.
  CHECK_FALSE(configFileFlags("health-time-scale = 2880\n", "f").ok());
}

TEST_CASE("config file: every service flag can be set there", "[config_file]") {
  for (const auto& [flag, is_switch] : serviceFlags()) {
    if (flag == "--config" || flag == "--name" || flag == "--role" || flag == "--as-of" ||
        flag == "--health-time-scale" || flag == "--health-clock-epoch") {
      continue;
    }
    const std::string key = flag.substr(2);
    auto flags = configFileFlags(key + " = " + (is_switch ? "true" : "1"), "f");
    INFO(key);
    CHECK(flags.ok());
  }
}

TEST_CASE("config file: the command line wins over the file", "[config_file]") {
  const Strings file{"--listen=0.0.0.0:9000", "--state-dir=/var/lib/provisioner"};
  auto merged = mergeConfigFlags({"serve", "--listen", "127.0.0.1:0"}, file);
  CHECK(merged == Strings{"serve", "--listen=0.0.0.0:9000", "--state-dir=/var/lib/provisioner",
                          "--listen", "127.0.0.1:0"});
  auto o = parseServiceOptions(merged);
  REQUIRE(o.ok());
  CHECK(o->command == "serve");
  CHECK(o->listen == "127.0.0.1:0");
  CHECK(o->state_dir == "/var/lib/provisioner");
  // Two-word commands keep their words in front.
  auto token = parseServiceOptions(mergeConfigFlags({"token", "list"}, file));
  REQUIRE(token.ok());
  CHECK(token->command == "token list");
  CHECK(token->state_dir == "/var/lib/provisioner");
}

#include <catch2/catch.hpp>

#include <sstream>

#include "provisioner/cli/args.hpp"
#include "provisioner/cli/command.hpp"
#include "provisioner/cli/ctl.hpp"
#include "provisioner/cli/errors.hpp"

using namespace provisioner::cli;

namespace {

std::vector<CommandSpec> specs() {
  std::vector<CommandSpec> all;
  for (auto group : {poCommands(), nodeCommands(), tokenCommands(), localCommands()}) {
    for (auto& command : group) all.push_back(command.spec);
  }
  return all;
}

common::Result<Invocation> parse(std::vector<std::string> args) {
  static const auto kSpecs = specs();
  return parseArgs(args, kSpecs);
}

std::string commandName(const Invocation& inv) {
  static const auto kSpecs = specs();
  const auto& spec = kSpecs.at(inv.command.value());
  return spec.name.empty() ? spec.group : spec.group + " " + spec.name;
}

const std::string kNodesListUsage =
    "usage: provisionerctl [global flags] nodes list [--rack R] [--state S] [--model M] "
    "[--site S] [--firmware V] [--limit N] [--all]";

struct Run {
  int code;
  std::string out;
  std::string err;
};

Run run(std::vector<std::string> args) {
  std::ostringstream out, err;
  Environment env;  // no token, no HOME: nothing is read from the machine
  int code = runCtl(args, out, err, env);
  return {code, out.str(), err.str()};
}

}  // namespace

TEST_CASE("args: a command with flags, global flags anywhere", "[unit][cli]") {
  auto inv = parse({"--url", "http://h:1", "nodes", "list", "--rack", "R01", "--json",
                    "--state=ready", "--all", "--token", "t"});
  REQUIRE(inv.ok());
  CHECK(commandName(*inv) == "nodes list");
  CHECK(inv->globals.url == "http://h:1");
  CHECK(inv->globals.token == "t");
  CHECK(inv->globals.json);
  CHECK(inv->option("rack") == "R01");
  CHECK(inv->option("state") == "ready");
  CHECK(inv->has("all"));
  CHECK_FALSE(inv->has("model"));
}

TEST_CASE("args: positionals and required flags", "[unit][cli]") {
  auto inv = parse({"po", "import", "asn.csv", "--po", "PO-1", "--vendor", "NVIDIA"});
  REQUIRE(inv.ok());
  CHECK(commandName(*inv) == "po import");
  CHECK(inv->positionals == std::vector<std::string>{"asn.csv"});
  CHECK(inv->option("po") == "PO-1");
  CHECK(inv->option("vendor") == "NVIDIA");
}

TEST_CASE("args: an unknown flag is a usage error carrying the command's usage", "[unit][cli]") {
  auto inv = parse({"nodes", "list", "--rak", "R01"});
  REQUIRE_FALSE(inv.ok());
  CHECK(inv.error().code == kUsageErrorCode);
  CHECK(inv.error().message == "unknown flag --rak");
  CHECK(inv.error().detail == kNodesListUsage);
  CHECK(exitCodeFor(inv.error()) == kExitUsage);
}

TEST_CASE("args: a missing flag value is a usage error", "[unit][cli]") {
  for (auto args : {std::vector<std::string>{"nodes", "list", "--rack"},
                    std::vector<std::string>{"nodes", "list", "--rack", "--all"}}) {
    auto inv = parse(args);
    REQUIRE_FALSE(inv.ok());
    CHECK(inv.error().message == "missing value for --rack");
  }
  auto flagWithValue = parse({"nodes", "list", "--all=yes"});
  REQUIRE_FALSE(flagWithValue.ok());
  CHECK(flagWithValue.error().message == "flag --all takes no value");
}

TEST_CASE("args: arity, required flags and unknown commands", "[unit][cli]") {
  auto missingFile = parse({"po", "import", "--po", "PO-1", "--vendor", "V"});
  REQUIRE_FALSE(missingFile.ok());
  CHECK(missingFile.error().message == "missing FILE.csv");

  auto missingFlag = parse({"po", "import", "a.csv", "--po", "PO-1"});
  REQUIRE_FALSE(missingFlag.ok());
  CHECK(missingFlag.error().message == "missing required flag --vendor");

  auto extra = parse({"po", "show", "PO-1", "PO-2"});
  REQUIRE_FALSE(extra.ok());
  CHECK(extra.error().message == "unexpected argument 'PO-2'");

  auto unknown = parse({"frobnicate"});
  REQUIRE_FALSE(unknown.ok());
  CHECK(unknown.error().message == "unknown command 'frobnicate'");

  auto unknownSub = parse({"po", "delete"});
  REQUIRE_FALSE(unknownSub.ok());
  CHECK(unknownSub.error().message == "unknown command 'po delete'");
  CHECK(unknownSub.error().detail.starts_with("usage:\n  provisionerctl po import"));

  auto noSub = parse({"token"});
  REQUIRE_FALSE(noSub.ok());
  CHECK(noSub.error().message == "'token' needs a subcommand");
}

TEST_CASE("args: -- ends flags, --help skips arity checks", "[unit][cli]") {
  auto inv = parse({"po", "show", "--", "--odd-po"});
  REQUIRE(inv.ok());
  CHECK(inv->positionals == std::vector<std::string>{"--odd-po"});

  auto help = parse({"po", "import", "--help"});
  REQUIRE(help.ok());
  CHECK(help->globals.help);
  CHECK(help->commandWords == std::vector<std::string>{"po", "import"});
}

TEST_CASE("runCtl: usage errors exit 64 with the command's usage on stderr", "[unit][cli]") {
  auto r = run({"nodes", "list", "--rak", "R01"});
  CHECK(r.code == 64);
  CHECK(r.out.empty());
  CHECK(r.err == "error: unknown flag --rak\n" + kNodesListUsage + "\n");

  auto limit = run({"nodes", "list", "--limit", "many", "--token", "t"});
  CHECK(limit.code == 64);
  CHECK(limit.err ==
        "error: --limit must be a positive integer, got 'many'\n" + kNodesListUsage + "\n");

  auto id = run({"nodes", "show", "abc", "--token", "t"});
  CHECK(id.code == 64);
  CHECK(id.err ==
        "error: ID must be a number, got 'abc'\nusage: provisionerctl [global flags] nodes show "
        "ID\n");

  CHECK(run({}).code == 64);
}

TEST_CASE("runCtl: version and help need no token", "[unit][cli]") {
  auto version = run({"version"});
  CHECK(version.code == 0);
  CHECK(version.out == "provisionerctl 0.1.0\n");

  auto help = run({"help"});
  CHECK(help.code == 0);
  CHECK(help.out.find("  nodes list [--rack R]") != std::string::npos);

  auto commandHelp = run({"token", "create", "--help"});
  CHECK(commandHelp.code == 0);
  CHECK(commandHelp.out ==
        "usage: provisionerctl [global flags] token create --name N --role R\n"
        "  create an API token (roles: viewer, procurement, asset, operator, admin)\n");
}

TEST_CASE("runCtl: refuses to call the API without a token", "[unit][cli]") {
  auto r = run({"nodes", "list"});
  CHECK(r.code == 78);
  CHECK(r.out.empty());
  CHECK(r.err ==
        "error: no API token: pass --token, set PROVISIONER_TOKEN, or put \"token\" in "
        "$XDG_CONFIG_HOME/provisioner/ctl.json\n");
}

// The real `provisioner` binary: private PostgreSQL under a state folder, JSON logs, tokens from
// the command line, graceful stop on SIGTERM that also stops the database.
#include <signal.h>
#include <sys/stat.h>

#include <httplib.h>
#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "support/child_process.hpp"

using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

// A state folder the postgres system user can enter (tests run as root in CI).
fs::path stateDir() {
  char tmpl[] = "/tmp/prov-e2e-XXXXXX";
  REQUIRE(mkdtemp(tmpl) != nullptr);
  chmod(tmpl, 0755);
  return tmpl;
}

int portFrom(const std::string& line) {
  auto pos = line.find("127.0.0.1:");
  REQUIRE(pos != std::string::npos);
  return std::stoi(line.substr(pos + 10));
}

}  // namespace

TEST_CASE("provisioner serve runs on a private PostgreSQL and stops cleanly on SIGTERM",
          "[e2e][service]") {
  const fs::path state = stateDir();
  const std::string bin = PROVISIONER_BINARY;
  testing::ChildProcess service(
      {bin, "serve", "--state-dir", state.string(), "--listen", "127.0.0.1:0"});
  auto serving = service.waitForLine("serving on", 120s);
  INFO(service.output());
  REQUIRE(serving);
  const int port = portFrom(*serving);
  httplib::Client client("127.0.0.1", port);
  auto ready = client.Get("/readyz");
  REQUIRE(ready);
  CHECK(ready->status == 200);

  auto [rc, token_out] = testing::runCommand(
      {bin, "token", "create", "--state-dir", state.string(), "--role", "asset", "--name", "e2e"});
  REQUIRE(rc == 0);
  std::string token = token_out.substr(0, token_out.find('\n'));
  REQUIRE(token.rfind("prov_", 0) == 0);

  auto sites = client.Post("/api/v1/sites", {{"Authorization", "Bearer " + token}},
                           R"({"name":"e2e-site"})", "application/json");
  REQUIRE(sites);
  CHECK(sites->status == 201);
  // The token command used the running database and left it running.
  CHECK(client.Get("/readyz")->status == 200);

  service.signal(SIGTERM);
  auto code = service.wait(60s);
  REQUIRE(code);
  CHECK(*code == 0);
  // The private database was stopped with the service.
  CHECK_FALSE(fs::exists(state / "postgres" / "data" / "postmaster.pid"));
  // Logs are JSON lines and never contain the token.
  CHECK(service.output().find(token) == std::string::npos);
  auto first_line = service.output().substr(0, service.output().find('\n'));
  CHECK(nlohmann::json::parse(first_line, nullptr, false).is_object());
  fs::remove_all(state);
}

TEST_CASE("provisioner refuses bad flags with a usage error", "[e2e][service]") {
  auto [rc, out] = testing::runCommand({PROVISIONER_BINARY, "serve", "--listen", "nowhere"});
  CHECK(rc == 64);
  auto [rc2, out2] = testing::runCommand({PROVISIONER_BINARY, "frobnicate"});
  CHECK(rc2 == 64);
}

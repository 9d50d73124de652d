#include <catch2/catch.hpp>

#include "provisioner/service/options.hpp"

using provisioner::service::parseServiceOptions;

TEST_CASE("serve flags are parsed with = or a separate value", "[unit][service]") {
  auto o = parseServiceOptions(
      {"serve", "--listen=0.0.0.0:9000", "--state-dir", "/srv/prov", "--http-threads", "16"});
  REQUIRE(o.ok());
  CHECK(o->command == "serve");
  CHECK(o->listen == "0.0.0.0:9000");
  CHECK(o->state_dir == "/srv/prov");
  CHECK(o->http_threads == 16);
}

TEST_CASE("bad service flags are named in the error", "[unit][service]") {
  auto unknown = parseServiceOptions({"serve", "--lisen", "x"});
  REQUIRE_FALSE(unknown.ok());
  CHECK(unknown.error().field == "--lisen");
  auto missing = parseServiceOptions({"serve", "--listen"});
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().code == "missing_value");
  auto range = parseServiceOptions({"serve", "--db-pool-size", "0"});
  REQUIRE_FALSE(range.ok());
  CHECK(range.error().field == "--db-pool-size");
}

TEST_CASE("token commands need their arguments", "[unit][service]") {
  auto create = parseServiceOptions({"token", "create", "--name", "alice", "--role", "admin"});
  REQUIRE(create.ok());
  CHECK(create->command == "token create");
  CHECK(create->token_role == "admin");
  CHECK_FALSE(parseServiceOptions({"token", "create", "--name", "alice"}).ok());
  auto revoke = parseServiceOptions({"token", "revoke", "7"});
  REQUIRE(revoke.ok());
  CHECK(*revoke->token_id == 7);
  CHECK_FALSE(parseServiceOptions({"token", "revoke", "seven"}).ok());
}

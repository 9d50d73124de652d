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

TEST_CASE("health-compact takes the day it counts from", "[unit][service]") {
  auto o = parseServiceOptions({"health-compact", "--as-of", "2026-12-09"});
  REQUIRE(o.ok());
  CHECK(o->command == "health-compact");
  CHECK(o->as_of == "2026-12-09");
  CHECK_FALSE(parseServiceOptions({"health-compact", "2026-12-09"}).ok());
}

TEST_CASE("decommission and lease flags: values and their bounds", "[unit][service]") {
  auto o = parseServiceOptions({"serve", "--wipe-channel", "wipe-2027", "--wipe-min-gpu-coverage",
                                "0.99", "--workflow-lease-seconds", "6"});
  REQUIRE(o.ok());
  CHECK(o->wipe_channel == "wipe-2027");
  CHECK(o->wipe_min_gpu_coverage == Approx(0.99));
  CHECK(o->workflow_lease_s == 6);
  auto defaults = parseServiceOptions({"serve"});
  REQUIRE(defaults.ok());
  CHECK(defaults->wipe_channel == "wipe");
  CHECK(defaults->wipe_min_gpu_coverage == Approx(0.95));
  CHECK(defaults->workflow_lease_s == 60);
  for (const char* bad : {"0.2", "1.5", "most", ""}) {
    auto refused = parseServiceOptions({"serve", "--wipe-min-gpu-coverage", bad});
    INFO(bad);
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().field == "--wipe-min-gpu-coverage");
  }
  auto short_lease = parseServiceOptions({"serve", "--workflow-lease-seconds", "1"});
  REQUIRE_FALSE(short_lease.ok());
  CHECK(short_lease.error().field == "--workflow-lease-seconds");
}

TEST_CASE("the BMC request time-out: default, value and bounds", "[unit][service]") {
  auto defaults = parseServiceOptions({"serve"});
  REQUIRE(defaults.ok());
  CHECK(defaults->bmc_request_timeout_s == 30);
  auto five = parseServiceOptions({"serve", "--bmc-request-timeout-seconds", "5"});
  REQUIRE(five.ok());
  CHECK(five->bmc_request_timeout_s == 5);
  for (const char* bad : {"0", "601", "5s", ""}) {
    auto refused = parseServiceOptions({"serve", "--bmc-request-timeout-seconds", bad});
    INFO(bad);
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().field == "--bmc-request-timeout-seconds");
  }
}

TEST_CASE("the health history's clock: real unless a simulated fleet asks", "[unit][service]") {
  auto defaults = parseServiceOptions({"serve"});
  REQUIRE(defaults.ok());
  CHECK(defaults->health_time_scale == 1.0);
  CHECK_FALSE(defaults->health_clock_epoch);
  auto fast = parseServiceOptions(
      {"serve", "--health-time-scale", "2880", "--health-clock-epoch", "1796677537"});
  REQUIRE(fast.ok());
  CHECK(fast->health_time_scale == 2880.0);
  CHECK(*fast->health_clock_epoch == 1796677537);
  for (const char* bad : {"0.5", "200000", "fast", ""}) {
    auto refused = parseServiceOptions({"serve", "--health-time-scale", bad});
    INFO(bad);
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().field == "--health-time-scale");
  }
  auto epoch = parseServiceOptions({"serve", "--health-clock-epoch", "-5"});
  REQUIRE_FALSE(epoch.ok());
  CHECK(epoch.error().field == "--health-clock-epoch");
}

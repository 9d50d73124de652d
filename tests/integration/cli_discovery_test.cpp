// provisionerctl discovery against the real service with an engine.
#include <catch2/catch.hpp>

#include "integration/cli_fake_server.hpp"
#include "support/service_fixture.hpp"

using nlohmann::json;
using testing::runCtlAt;

TEST_CASE("provisionerctl discovery lease and list show the BMC and its run",
          "[integration][cli][discovery]") {
  testing::ServiceFixture svc(testing::withEngine());
  const auto token = svc.token("operator");
  auto first = runCtlAt(
      svc.publicUrl(), token,
      {"discovery", "lease", "add", "02:00:00:00:bb:01", "10.8.0.1", "--hostname", "bmc-1"});
  INFO(first.err);
  REQUIRE(first.code == 0);
  CHECK(first.out.find("02:00:00:00:bb:01") != std::string::npos);
  CHECK(first.out.find("started") != std::string::npos);
  auto again = runCtlAt(svc.publicUrl(), token,
                        {"discovery", "lease", "old", "02:00:00:00:bb:01", "10.8.0.1"});
  REQUIRE(again.code == 0);
  CHECK(again.out.find("already there") != std::string::npos);
  auto bad = runCtlAt(svc.publicUrl(), token,
                      {"discovery", "lease", "renew", "02:00:00:00:bb:01", "10.8.0.1"});
  CHECK(bad.code != 0);

  auto list = runCtlAt(svc.publicUrl(), token, {"--json", "discovery", "list"});
  REQUIRE(list.code == 0);
  auto items = json::parse(list.out)["items"];
  REQUIRE(items.size() == 1);
  CHECK(items[0]["seen_count"] == 2);
}

TEST_CASE("provisionerctl discovery manifest imports a rack file",
          "[integration][cli][discovery]") {
  testing::ServiceFixture svc(testing::withEngine());
  testing::TempDir dir;
  const json rack = {{"site", "dc1"},
                     {"rack", "r09"},
                     {"nodes",
                      {{{"u_position", 1},
                        {"bmc_mac", "02:00:00:00:cc:01"},
                        {"bmc_address", "10.8.1.1"},
                        {"chassis_serial", "SN-A"}}}}};
  const std::string path = dir.write("rack.json", rack.dump());
  auto run = runCtlAt(svc.publicUrl(), svc.token("operator"), {"discovery", "manifest", path});
  INFO(run.err);
  REQUIRE(run.code == 0);
  CHECK(run.out.find("SN-A") != std::string::npos);
  CHECK(run.out.find("yes") != std::string::npos);
}

// provisionerctl campaign against the real service: create from a file, the plan table, start
// and pause, show, and watch (one frame with --once; without it, watch ends by itself when the
// campaign pauses or completes).
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "integration/cli_fake_server.hpp"
#include "integration/image_test_support.hpp"
#include "inventory/campaigns.hpp"
#include "inventory/images.hpp"
#include "inventory/nodes.hpp"
#include "inventory/sites.hpp"
#include "support/service_fixture.hpp"

using nlohmann::json;
using testing::runCtlAt;

namespace {

// Racks R01 (nodes 1 and 2) and R02 (node 3) of ready DGX H100s on ubuntu 24.04.1 (channel
// prod); ubuntu 24.04.2 registered.
void seed(testing::ServiceFixture& svc) {
  REQUIRE(inventory::createSite(svc.db(), "dc1", ""));
  for (const auto& [rack, serials] : std::vector<std::pair<std::string, std::vector<std::string>>>{
           {"R01", {"R01-1", "R01-2"}}, {"R02", {"R02-1"}}}) {
    auto r = inventory::createRack(svc.db(), inventory::RackSpec{"dc1", "", "", rack, 42});
    REQUIRE(r);
    for (const auto& serial : serials) {
      inventory::NodeSpec spec;
      spec.chassis_serial = serial;
      spec.hardware_model = "DGX H100";
      spec.rack_id = r->id;
      spec.state = "ready";
      REQUIRE(inventory::createNode(svc.db(), spec, "test"));
    }
  }
  REQUIRE(testing::registerImage(svc, testing::makeImage("ubuntu", "24.04.1")) == 201);
  REQUIRE(testing::registerImage(svc, testing::makeImage("ubuntu", "24.04.2")) == 201);
  REQUIRE(inventory::promoteChannel(svc.db(), "prod", {"ubuntu", "24.04.1"}, "test", "first"));
  inventory::HardwareProfile profile;
  profile.name = "dgx-h100";
  profile.model = "DGX H100";
  profile.channel = "prod";
  REQUIRE(inventory::upsertHardwareProfile(svc.db(), profile, "test"));
}

const char* kCampaignFile = R"({
  "name": "os-roll", "kind": "image",
  "image": {"name": "ubuntu", "version": "24.04.2", "channel": "prod"},
  "selector": {"site": "dc1"},
  "canary": {"count": 1}, "bake_seconds": 300, "waves": ["rest"],
  "caps": {"global": 2, "per_rack": 1}
})";

}  // namespace

TEST_CASE("campaign create, plan and show print tables", "[integration][cli][campaigns]") {
  testing::ServiceFixture svc(testing::withEngine());
  seed(svc);
  testing::TempDir dir;
  const auto token = svc.token("operator");

  auto created = runCtlAt(svc.publicUrl(), token,
                          {"campaign", "create", dir.write("campaign.json", kCampaignFile)});
  INFO(created.err);
  REQUIRE(created.code == 0);
  CHECK(created.out ==
        "Campaign 1 (os-roll) created as draft: 3 nodes in 2 waves, estimated 45m.\n"
        "Review it with `provisionerctl campaign plan 1`, then `provisionerctl campaign start "
        "1`.\n");

  auto plan = runCtlAt(svc.publicUrl(), token, {"campaign", "plan", "1"});
  INFO(plan.err);
  REQUIRE(plan.code == 0);
  CHECK(plan.out ==
        "Campaign 1 (os-roll), image, draft\n"
        "\n"
        "NODE  SERIAL  SITE  RACK  MODEL     WAVE  COMPONENTS                              EST\n"
        "1     R01-1   dc1   R01   DGX H100  0     image ubuntu 24.04.1 -> ubuntu 24.04.2  20m\n"
        "3     R02-1   dc1   R02   DGX H100  1     image ubuntu 24.04.1 -> ubuntu 24.04.2  20m\n"
        "2     R01-2   dc1   R01   DGX H100  1     image ubuntu 24.04.1 -> ubuntu 24.04.2  20m\n"
        "\n"
        "WAVE  NODES  NODE TIME  DURATION  BAKE\n"
        "0     1      20m        20m       5m\n"
        "1     2      40m        20m       0s\n"
        "\n"
        "Estimated duration: 45m (bake times included)\n");

  auto plan_json = runCtlAt(svc.publicUrl(), token, {"--json", "campaign", "plan", "1"});
  REQUIRE(plan_json.code == 0);
  CHECK(json::parse(plan_json.out)["estimated_duration_seconds"] == 2700);

  auto bad = runCtlAt(svc.publicUrl(), token,
                      {"campaign", "create", dir.write("bad.json", R"({"name": "x"})")});
  CHECK(bad.code == 1);
  CHECK(bad.err.find("field") != std::string::npos);
  auto not_json =
      runCtlAt(svc.publicUrl(), token, {"campaign", "create", dir.write("bad.txt", "name: x")});
  CHECK(not_json.code == 64);

  auto started = runCtlAt(svc.publicUrl(), token, {"campaign", "start", "1"});
  INFO(started.err);
  CHECK(started.code == 0);
  CHECK(started.out == "Campaign 1 is running.\n");
  auto twice = runCtlAt(svc.publicUrl(), token, {"campaign", "start", "1"});
  CHECK(twice.code == 1);
  CHECK(twice.err.find("campaign_state") != std::string::npos);

  auto show = runCtlAt(svc.publicUrl(), token, {"campaign", "show", "1"});
  REQUIRE(show.code == 0);
  CHECK(show.out.find("State:         running\n") != std::string::npos);
  CHECK(show.out.find("Target:        ubuntu 24.04.2\n") != std::string::npos);
  CHECK(show.out.find("WAVE  TOTAL  PENDING  RUNNING  SUCCEEDED  FAILED  DONE\n"
                      "0     1      1        0        0          0       0\n"
                      "1     2      2        0        0          0       0\n") !=
        std::string::npos);
}

TEST_CASE("campaign watch draws a bar per wave and ends when the campaign pauses or completes",
          "[integration][cli][campaigns]") {
  testing::ServiceFixture svc(testing::withEngine());
  seed(svc);
  testing::TempDir dir;
  const auto token = svc.token("operator");
  REQUIRE(runCtlAt(svc.publicUrl(), token,
                   {"campaign", "create", dir.write("campaign.json", kCampaignFile)})
              .code == 0);
  REQUIRE(runCtlAt(svc.publicUrl(), token, {"campaign", "start", "1"}).code == 0);
  const auto now = std::chrono::system_clock::now();
  REQUIRE(inventory::updateCampaignNode(svc.db(),
                                        {1, 1, "succeeded", "", "{}", std::nullopt, "c", now}));
  REQUIRE(inventory::updateCampaignNode(
      svc.db(), {1, 3, "failed", "no_agent", "{}", std::nullopt, "c", now}));
  REQUIRE(
      inventory::updateCampaignNode(svc.db(), {1, 2, "running", "", "{}", std::nullopt, "c", now}));

  auto once = runCtlAt(svc.publicUrl(), token, {"campaign", "watch", "1", "--once"});
  INFO(once.err);
  REQUIRE(once.code == 0);
  CHECK(once.out ==
        "Campaign 1 (os-roll) running, wave 0\n"
        "WAVE  PROGRESS                DONE  RUNNING  FAILED\n"
        "0     [####################]  1/1   0        0\n"
        "1     [##########..........]  1/2   1        1\n");

  CHECK(runCtlAt(svc.publicUrl(), token, {"campaign", "watch", "1", "--interval", "0"}).code == 64);

  REQUIRE(runCtlAt(svc.publicUrl(), token,
                   {"campaign", "pause", "1", "--reason", "R02-1 did not come back"})
              .code == 0);
  auto paused = runCtlAt(svc.publicUrl(), token, {"campaign", "watch", "1", "--interval", "1"});
  CHECK(paused.code == 1);
  CHECK(paused.out.find("Paused: R02-1 did not come back\n") != std::string::npos);
  CHECK(paused.err.find("campaign 1 is paused: R02-1 did not come back") != std::string::npos);

  inventory::CampaignTransition done;
  done.campaign_id = 1;
  done.expected = {"paused"};
  done.to = "completed";
  done.actor = "controller";
  done.now = now;
  REQUIRE(inventory::transitionCampaign(svc.db(), done));
  auto completed = runCtlAt(svc.publicUrl(), token, {"campaign", "watch", "1"});
  CHECK(completed.code == 0);
  CHECK(completed.out.find("Campaign 1 (os-roll) completed\n") == 0);
}

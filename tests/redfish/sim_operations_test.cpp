// Every typed operation against the simulator through the real transport: power, boot override,
// BIOS (including a refused attribute), firmware update tasks (also hung ones), secure erase,
// BMC account, event subscriptions and resets to defaults. The simulator runs 200x faster than
// real time so tasks of minutes finish in well under a second.
#include <algorithm>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "redfish/accounts.hpp"
#include "redfish/bios.hpp"
#include "redfish/boot.hpp"
#include "redfish/crawl.hpp"
#include "redfish/errors.hpp"
#include "redfish/events.hpp"
#include "redfish/identity.hpp"
#include "redfish/maintenance.hpp"
#include "redfish/power.hpp"
#include "redfish/quirks.hpp"
#include "redfish/support/sim_fixture.hpp"
#include "redfish/update.hpp"

namespace {

constexpr double kFastTime = 200.0;

redfish::FollowOptions quickFollow() {
  redfish::FollowOptions options;
  options.pollInterval = std::chrono::milliseconds(20);
  options.timeout = std::chrono::seconds(20);
  return options;
}

struct Bmc {
  testing::SimFleet sim;
  std::shared_ptr<redfish::BmcClient> client;
  redfish::Inventory inventory;
  redfish::Quirks quirks;
  std::string system;

  explicit Bmc(const std::string& profile)
      : sim(testing::SimFleet::start(testing::oneRack(profile, 1, false, kFastTime))) {
    client = sim.client("r01-n01");
    auto crawled = redfish::crawlInventory(client);
    REQUIRE(crawled.ok());
    inventory = std::move(*crawled);
    auto identity = redfish::readIdentity(*client);
    REQUIRE(identity.ok());
    quirks = redfish::quirksFor(identity->vendor);
    system = inventory.systems.front().odataId;
  }
  nlohmann::json snapshot() { return sim.snapshot("r01-n01"); }
  // Lets simulated time pass (power transitions, tasks) without waiting for it.
  void advance(double seconds) { sim.fleet->clock().advance(seconds); }
};

// A writable enumeration attribute and a value it does not have now.
std::pair<std::string, std::string> changeableEnum(const redfish::BiosRegistry& registry,
                                                   const nlohmann::json& current) {
  for (const auto& [name, def] : registry.attributes) {
    if (def.readOnly || def.type != "Enumeration" || !current.contains(name)) continue;
    for (const auto& value : def.allowedValues) {
      if (current[name] != value) return {name, value};
    }
  }
  return {};
}

struct BiosChange {
  redfish::BiosInfo bios;
  redfish::BiosRegistry registry;
  std::string name;   // a writable enumeration attribute
  std::string value;  // a value it does not have now
};

BiosChange biosChange(Bmc& bmc) {
  auto bios = redfish::readBios(*bmc.client, bmc.system);
  REQUIRE(bios.ok());
  auto registry = redfish::readBiosRegistry(*bmc.client, *bios);
  REQUIRE(registry.ok());
  auto [name, value] = changeableEnum(*registry, bios->attributes);
  REQUIRE_FALSE(name.empty());
  return {*bios, *registry, name, value};
}

}  // namespace

TEST_CASE("Power off and on through Reset with a ResetType the BMC allows", "[redfish][sim]") {
  Bmc bmc("dell-r750");
  auto off =
      redfish::resetSystem(*bmc.client, bmc.system, redfish::PowerAction::kForceOff, bmc.quirks);
  REQUIRE(off.ok());
  CHECK(off->resetType == "ForceOff");
  bmc.advance(120);
  CHECK(redfish::powerState(*bmc.client, bmc.system).value() == "Off");
  auto on = redfish::resetSystem(*bmc.client, bmc.system, redfish::PowerAction::kOn, bmc.quirks);
  REQUIRE(on.ok());
  bmc.advance(600);
  CHECK(redfish::powerState(*bmc.client, bmc.system).value() == "On");
  // Dell answers 409 to a redundant power action; the quirk makes it a success.
  auto again = redfish::resetSystem(*bmc.client, bmc.system, redfish::PowerAction::kOn, bmc.quirks);
  REQUIRE(again.ok());
  CHECK(again->alreadyInState);
}

TEST_CASE("A one-time PXE boot override is consumed by the next boot", "[redfish][sim]") {
  Bmc bmc("dgx-h100");
  REQUIRE(
      redfish::setOneTimeBoot(*bmc.client, bmc.system, {redfish::BootTarget::kPxe, {}}, bmc.quirks)
          .ok());
  auto boot = bmc.snapshot()["boot"][bmc.system];
  CHECK(boot["target"] == "Pxe");
  CHECK(boot["enabled"] == "Once");
  REQUIRE(
      redfish::resetSystem(*bmc.client, bmc.system, redfish::PowerAction::kForceRestart, bmc.quirks)
          .ok());
  bmc.advance(600);
  CHECK(bmc.snapshot()["boot"][bmc.system]["enabled"] == "Disabled");
}

TEST_CASE("BIOS settings are validated, stay pending, and apply on reset", "[redfish][sim]") {
  Bmc bmc("dell-r750");
  auto change = biosChange(bmc);
  auto& [bios, registry, name, value] = change;
  nlohmann::json desired = {{name, value}};

  auto applied =
      redfish::applyBiosSettings(*bmc.client, bmc.system, desired, bmc.quirks, &registry);
  REQUIRE(applied.ok());
  CHECK(applied->patched == desired);
  auto pending = redfish::readPendingBios(*bmc.client, bios);
  REQUIRE(pending.ok());
  CHECK((*pending)[name] == value);
  CHECK(redfish::biosNotApplied(*bmc.client, bmc.system, desired).value() ==
        std::vector<std::string>{name});

  REQUIRE(
      redfish::resetSystem(*bmc.client, bmc.system, redfish::PowerAction::kForceRestart, bmc.quirks)
          .ok());
  bmc.advance(600);
  CHECK(redfish::biosNotApplied(*bmc.client, bmc.system, desired).value().empty());
  // Applying the same settings again changes nothing.
  auto noop = redfish::applyBiosSettings(*bmc.client, bmc.system, desired, bmc.quirks, &registry);
  REQUIRE(noop.ok());
  CHECK(noop->patched.empty());
}

TEST_CASE("A refused BIOS attribute is a typed error naming it and listing allowed values",
          "[redfish][sim]") {
  Bmc bmc("dell-r750");
  auto change = biosChange(bmc);
  auto& [bios, registry, name, value] = change;

  auto unknown = redfish::applyBiosSettings(*bmc.client, bmc.system, {{"NoSuchKnob", "On"}},
                                            bmc.quirks, &registry);
  REQUIRE_FALSE(unknown.ok());
  CHECK(unknown.error().code == redfish::codes::kUnknownAttribute);

  auto badValue = redfish::applyBiosSettings(*bmc.client, bmc.system, {{name, "Sideways"}},
                                             bmc.quirks, &registry);
  REQUIRE_FALSE(badValue.ok());
  CHECK(badValue.error().code == redfish::codes::kNotAllowed);
  CHECK(badValue.error().message.find(value) != std::string::npos);
  CHECK(bmc.snapshot()["bios"]["pending"].empty());

  // The BMC refuses it too, in its own words, when a client skips the validation.
  redfish::Request patch;
  patch.method = redfish::Method::kPatch;
  patch.target = bios.settingsPath;
  patch.body = nlohmann::json({{"Attributes", {{name, "Sideways"}}}}).dump();
  patch.headers = {{"If-Match", "*"}};
  auto refused = bmc.client->send(patch);
  REQUIRE(refused.ok());
  CHECK(refused->status == 400);
  auto error = redfish::httpError("PATCH", *refused);
  CHECK(error.message.find(name) != std::string::npos);
}

TEST_CASE("A firmware update runs as a task and changes the version", "[redfish][sim]") {
  Bmc bmc("dgx-h100");
  const auto& target = bmc.inventory.firmware.front();
  auto task = redfish::simpleUpdate(*bmc.client,
                                    {"http://images.example/fw.bin",
                                     {},
                                     {"/redfish/v1/UpdateService/FirmwareInventory/" + target.id}});
  REQUIRE(task.ok());
  auto result = redfish::followTask(*bmc.client, *task, quickFollow());
  REQUIRE(result.ok());
  CHECK(result->state == "Completed");
  auto firmware = bmc.snapshot()["firmware"];
  REQUIRE_FALSE(firmware.empty());
  CHECK(firmware.begin().value()["version"] != target.version);
}

TEST_CASE("A hung firmware task ends in a time-out, not a hang", "[redfish][sim]") {
  Bmc bmc("dgx-h100");
  bmc.sim.patchFaults("r01-n01", {{"hung_tasks", true}});
  const auto& target = bmc.inventory.firmware.front();
  auto task = redfish::simpleUpdate(*bmc.client,
                                    {"http://images.example/fw.bin",
                                     {},
                                     {"/redfish/v1/UpdateService/FirmwareInventory/" + target.id}});
  REQUIRE(task.ok());
  auto options = quickFollow();
  options.timeout = std::chrono::milliseconds(500);
  auto result = redfish::followTask(*bmc.client, *task, options);
  REQUIRE_FALSE(result.ok());
  CHECK(result.error().code == redfish::codes::kTimeout);
}

TEST_CASE("A BMC that vanishes during a firmware update is unreachable afterwards",
          "[redfish][sim]") {
  auto options = testing::quickTransportOptions();
  options.requestTimeout = std::chrono::milliseconds(500);
  options.maxAttempts = 2;
  auto sim = testing::SimFleet::start(testing::oneRack("dgx-h100", 1, false, kFastTime), options);
  sim.patchFaults("r01-n01", {{"vanish_during_firmware_update", true}});
  auto client = sim.client("r01-n01");
  auto inventory = redfish::crawlInventory(client);
  REQUIRE(inventory.ok());
  auto task = redfish::simpleUpdate(
      *client, {"http://images.example/fw.bin",
                {},
                {"/redfish/v1/UpdateService/FirmwareInventory/" + inventory->firmware.front().id}});
  REQUIRE(task.ok());
  auto poll = redfish::pollTaskOnce(*client, *task);
  REQUIRE_FALSE(poll.ok());
  CHECK((poll.error().code == redfish::codes::kUnreachable ||
         poll.error().code == redfish::codes::kTimeout));
}

TEST_CASE("Drive secure erase runs as a task to completion", "[redfish][sim]") {
  Bmc bmc("dell-r750");
  std::string drive;
  for (const auto& storage : bmc.inventory.systems.front().storage) {
    for (const auto& d : storage.drives) {
      if (d.secureEraseAvailable && drive.empty()) drive = d.odataId;
    }
  }
  REQUIRE_FALSE(drive.empty());
  auto task = redfish::secureEraseDrive(*bmc.client, drive);
  REQUIRE(task.ok());
  REQUIRE(task->has_value());
  auto result = redfish::followTask(*bmc.client, **task, quickFollow());
  REQUIRE(result.ok());
  CHECK(result->state == "Completed");
}

TEST_CASE("A changed BMC password is the one the next login needs", "[redfish][sim]") {
  Bmc bmc("dell-r750");
  auto endpoint = bmc.sim.redfishEndpoint("r01-n01");
  const std::string fresh = "Rotated-Secret-42";
  REQUIRE(redfish::changeAccountPassword(*bmc.client, endpoint.username, fresh, bmc.quirks).ok());

  redfish::Transport other(testing::quickTransportOptions());
  auto stale = other.client(endpoint).value();
  auto refused = stale->send({redfish::Method::kGet, "/redfish/v1/Systems", {}, {}, {}, true});
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().code == redfish::codes::kAuthFailed);

  redfish::Transport third(testing::quickTransportOptions());
  endpoint.password = fresh;
  auto current = third.client(endpoint).value();
  auto accepted = current->send({redfish::Method::kGet, "/redfish/v1/Systems", {}, {}, {}, true});
  REQUIRE(accepted.ok());
  CHECK(accepted->status == 200);
}

TEST_CASE("Event subscriptions are created, listed and deleted", "[redfish][sim]") {
  Bmc bmc("dell-r750");
  redfish::SubscriptionRequest request;
  request.destination = "https://provisioner.example/api/v1/events/redfish";
  request.context = "node-42";
  request.eventTypes = {"Alert"};
  auto ours = [&](const std::vector<redfish::Subscription>& all) {
    return std::count_if(all.begin(), all.end(), [&](const auto& s) {
      return s.destination == request.destination && s.context == "node-42";
    });
  };
  const auto recorded = redfish::listSubscriptions(*bmc.client).value().size();
  auto path = redfish::subscribe(*bmc.client, request);
  REQUIRE(path.ok());
  auto listed = redfish::listSubscriptions(*bmc.client);
  REQUIRE(listed.ok());
  CHECK(listed->size() == recorded + 1);
  CHECK(ours(*listed) == 1);
  REQUIRE(redfish::unsubscribe(*bmc.client, *path).ok());
  auto after = redfish::listSubscriptions(*bmc.client).value();
  CHECK(after.size() == recorded);
  CHECK(ours(after) == 0);
}

TEST_CASE("BIOS and BMC resets to defaults are accepted", "[redfish][sim]") {
  Bmc bmc("dell-r750");
  REQUIRE(redfish::resetBiosToDefaults(*bmc.client, bmc.system).ok());
  CHECK(bmc.snapshot()["bios"]["resetPending"] == true);
  REQUIRE(
      redfish::resetManagerToDefaults(*bmc.client, "/redfish/v1/Managers/iDRAC.Embedded.1").ok());
}

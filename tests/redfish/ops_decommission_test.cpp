// Decommissioning operations against bmc-sim over HTTP: drives behind Storage with their
// SecureErase offer, the erase as a task (also failed, hung and not offered), the choice of
// SanitizationType, and the platform resets (BIOS defaults, Decommission not offered).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "redfish/bios.hpp"
#include "redfish/crawl.hpp"
#include "redfish/drives.hpp"
#include "redfish/errors.hpp"
#include "redfish/identity.hpp"
#include "redfish/platform_reset.hpp"
#include "redfish/support/sim_fixture.hpp"
#include "redfish/tasks.hpp"

namespace {

constexpr double kFastTime = 200.0;

redfish::FollowOptions quickFollow(std::chrono::milliseconds timeout = std::chrono::seconds(20)) {
  redfish::FollowOptions options;
  options.pollInterval = std::chrono::milliseconds(20);
  options.timeout = timeout;
  return options;
}

struct Bmc {
  testing::SimFleet sim;
  std::shared_ptr<redfish::BmcClient> client;
  std::string system;

  explicit Bmc(const std::string& profile)
      : sim(testing::SimFleet::start(testing::oneRack(profile, 1, false, kFastTime))) {
    client = sim.client("r01-n01");
    auto inventory = redfish::crawlInventory(client);
    REQUIRE(inventory.ok());
    system = inventory->systems.front().odataId;
  }
  redfish::DriveInfo erasableDrive() {
    auto drives = redfish::listDrives(*client, system);
    REQUIRE(drives.ok());
    for (const auto& d : *drives) {
      if (d.secureEraseOffered) return d;
    }
    FAIL("no drive offers SecureErase");
    return {};
  }
};

redfish::DriveInfo offering(std::vector<std::string> types) {
  redfish::DriveInfo d;
  d.secureEraseOffered = true;
  d.sanitizationTypes = std::move(types);
  return d;
}

}  // namespace

TEST_CASE("chooseSanitization prefers crypto, then block erase, then overwrite", "[redfish]") {
  auto crypto = redfish::chooseSanitization(offering({"Overwrite", "CryptographicErase"}));
  CHECK(crypto.type == "CryptographicErase");
  CHECK(crypto.nistLevel == "purge");
  auto block = redfish::chooseSanitization(offering({"Overwrite", "BlockErase"}));
  CHECK(block.type == "BlockErase");
  CHECK(block.nistLevel == "purge");
  auto overwrite = redfish::chooseSanitization(offering({"Overwrite"}));
  CHECK(overwrite.type == "Overwrite");
  CHECK(overwrite.nistLevel == "clear");
  auto unknown = redfish::chooseSanitization(offering({}));
  CHECK_FALSE(unknown.type.has_value());
  CHECK_FALSE(unknown.reason.empty());
}

TEST_CASE("listDrives follows Storage to drives with serial, model and the erase offer",
          "[redfish][sim]") {
  Bmc bmc("dell-r750");
  auto drives = redfish::listDrives(*bmc.client, bmc.system);
  REQUIRE(drives.ok());
  REQUIRE_FALSE(drives->empty());
  bool anyErasable = false;
  for (const auto& d : *drives) {
    CHECK(d.odataId.rfind("/redfish/v1/", 0) == 0);
    CHECK_FALSE(d.serialNumber.empty());
    anyErasable = anyErasable || d.secureEraseOffered;
  }
  CHECK(anyErasable);
}

TEST_CASE("secureEraseDrive runs a task that completes", "[redfish][sim]") {
  Bmc bmc("dell-r750");
  auto drive = bmc.erasableDrive();
  auto choice = redfish::chooseSanitization(drive);
  auto task = redfish::secureEraseDrive(*bmc.client, drive, choice.type);
  REQUIRE(task.ok());
  REQUIRE(task->has_value());
  auto result = redfish::followTask(*bmc.client, **task, quickFollow());
  REQUIRE(result.ok());
  CHECK(result->state == "Completed");
}

TEST_CASE("drive_erase_fails ends the erase task in Exception", "[redfish][sim]") {
  Bmc bmc("dell-r750");
  bmc.sim.patchFaults("r01-n01", {{"drive_erase_fails", true}});
  auto drive = bmc.erasableDrive();
  auto task = redfish::secureEraseDrive(*bmc.client, drive, std::nullopt);
  REQUIRE(task.ok());
  REQUIRE(task->has_value());
  auto result = redfish::followTask(*bmc.client, **task, quickFollow());
  REQUIRE_FALSE(result.ok());
  CHECK(result.error().code == redfish::codes::kTaskFailed);
}

TEST_CASE("drive_erase_hangs leaves the erase task running past the deadline", "[redfish][sim]") {
  Bmc bmc("dell-r750");
  bmc.sim.patchFaults("r01-n01", {{"drive_erase_hangs", true}});
  auto drive = bmc.erasableDrive();
  auto task = redfish::secureEraseDrive(*bmc.client, drive, std::nullopt);
  REQUIRE(task.ok());
  REQUIRE(task->has_value());
  auto poll = redfish::pollTaskOnce(*bmc.client, **task);
  REQUIRE(poll.ok());
  CHECK_FALSE(poll->terminal);
  auto result =
      redfish::followTask(*bmc.client, **task, quickFollow(std::chrono::milliseconds(300)));
  REQUIRE_FALSE(result.ok());
  CHECK(result.error().code == redfish::codes::kTimeout);
}

TEST_CASE("secure_erase_unsupported: drives offer no erase and the erase is not offered",
          "[redfish][sim]") {
  Bmc bmc("dell-r750");
  auto drive = bmc.erasableDrive();
  bmc.sim.patchFaults("r01-n01", {{"secure_erase_unsupported", true}});
  auto drives = redfish::listDrives(*bmc.client, bmc.system);
  REQUIRE(drives.ok());
  for (const auto& d : *drives) CHECK_FALSE(d.secureEraseOffered);
  auto task = redfish::secureEraseDrive(*bmc.client, drive, std::nullopt);
  REQUIRE_FALSE(task.ok());
  CHECK(redfish::isNotOffered(task.error()));
}

TEST_CASE("decommissionSystem on a BMC without the action is not offered", "[redfish][sim]") {
  Bmc bmc("dell-r750");
  auto result = redfish::decommissionSystem(*bmc.client, bmc.system, {"All"});
  REQUIRE_FALSE(result.ok());
  CHECK(redfish::isNotOffered(result.error()));
}

TEST_CASE("deleteAccount of an unknown user is bmc_account_not_found", "[redfish][sim]") {
  Bmc bmc("dell-r750");
  auto result = redfish::deleteAccount(*bmc.client, "no-such-user");
  REQUIRE_FALSE(result.ok());
  CHECK(result.error().code == "bmc_account_not_found");
  CHECK_FALSE(redfish::isNotOffered(result.error()));
}

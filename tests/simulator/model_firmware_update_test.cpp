// Firmware updates as rollouts meet them: downloaded packages, per-component apply (BMC
// restart, host reset, AC/aux power cycle), Dell jobs, and every firmware fault the campaign
// workflow must survive (docs/simulator.md, "Firmware updates").
#include <catch2/catch.hpp>

#include "simulator/fleet.hpp"
#include "simulator/support/model_support.hpp"

using namespace modeltest;

namespace {

constexpr const char* kImage = "http://127.0.0.1:9/fw.fwpkg";

// The FirmwareInventory member whose Id is `word`, else the first whose Id contains it
// (PCIeRetimer_0 is the host's retimer; HGX_FW_PCIeRetimer_0 waits for an AC power cycle).
sim::FirmwareVersion member(Bmc& bmc, const std::string& word) {
  const auto members = bmc.model->firmwareVersions();
  for (const auto& m : members) {
    if (m.id == word) return m;
  }
  for (const auto& m : members) {
    if (m.id.find(word) != std::string::npos) return m;
  }
  FAIL("no FirmwareInventory member named like " << word);
  return {};
}

std::string versionOf(Bmc& bmc, const std::string& path) {
  for (const auto& m : bmc.model->firmwareVersions()) {
    if (m.path == path) return m.version;
  }
  return {};
}

// SimpleUpdate of `path` with the package at kImage; returns the task path.
std::string update(Bmc& bmc, const std::string& path, bool force = false) {
  nlohmann::json body = {{"ImageURI", kImage}, {"Targets", nlohmann::json::array({path})}};
  if (force) body["ForceUpdate"] = true;
  auto r = bmc.send("POST", bmc.behaviour().simpleUpdateTarget, body);
  REQUIRE(r.status == 202);
  return bodyOf(r)["@odata.id"].get<std::string>();
}

void finishTasks(Bmc& bmc) {
  bmc.clock.advance(bmc.behaviour().firmwareTaskSeconds + 1);
}

std::string chassisResetTarget(Bmc& bmc) {
  for (const auto& [target, chassis] : bmc.behaviour().chassisResets) {
    if (chassis == bmc.behaviour().mainChassis) return target;
  }
  FAIL("the profile has no Chassis.Reset on its main chassis");
  return {};
}

}  // namespace

TEST_CASE("SimpleUpdate installs the version the downloaded package names") {
  Bmc bmc("dgx-h100");
  bmc.serveImages({{kImage, packageImage("99.1.2")}});
  auto retimer = member(bmc, "PCIeRetimer_0");
  auto task = update(bmc, retimer.path);
  finishTasks(bmc);
  CHECK(bmc.json(task)["TaskState"] == "Completed");
  CHECK(versionOf(bmc, retimer.path) == "99.1.2");
}

TEST_CASE("A failed download or a file that is no package ends the task in Exception") {
  Bmc bmc("dgx-h100");
  auto retimer = member(bmc, "PCIeRetimer_0");
  SECTION("download failed") {
    bmc.serveImages({{kImage, failedImage("HTTP 500")}});
    auto task = update(bmc, retimer.path);
    finishTasks(bmc);
    auto body = bmc.json(task);
    CHECK(body["TaskState"] == "Exception");
    CHECK_THAT(body["Messages"][0]["Message"].get<std::string>(),
               Catch::Contains("Unable to download") && Catch::Contains("HTTP 500"));
    // What tells a client that nothing was written: the image never arrived.
    CHECK(body["Messages"][1]["MessageId"] == "Base.1.15.0.ResourceAtUriUnreachable");
  }
  SECTION("not a package") {
    bmc.serveImages({{kImage, downloadedImage("MZ\x90 binary")}});
    auto task = update(bmc, retimer.path);
    finishTasks(bmc);
    CHECK(bmc.json(task)["TaskState"] == "Exception");
    CHECK(bmc.json(task)["Messages"].size() == 1);
  }
  CHECK(versionOf(bmc, retimer.path) == retimer.version);
}

TEST_CASE("firmware_task_fails: the task ends in Exception and nothing is installed") {
  Bmc bmc("dgx-h100");
  bmc.serveImages({{kImage, packageImage("99.1.2")}});
  sim::BehaviourFaults faults;
  faults.firmwareTaskFails = true;
  bmc.model->setFaults(faults);
  auto retimer = member(bmc, "PCIeRetimer_0");
  auto task = update(bmc, retimer.path);
  finishTasks(bmc);
  auto body = bmc.json(task);
  CHECK(body["TaskState"] == "Exception");
  CHECK(body["TaskStatus"] == "Critical");
  CHECK_THAT(body["Messages"][0]["Message"].get<std::string>(),
             Catch::Contains("firmware_task_fails"));
  CHECK(versionOf(bmc, retimer.path) == retimer.version);
}

TEST_CASE("firmware_version_unchanged: the task reports success and the version stays") {
  Bmc bmc("dgx-h100");
  bmc.serveImages({{kImage, packageImage("99.1.2")}});
  sim::BehaviourFaults faults;
  faults.firmwareVersionUnchanged = true;
  bmc.model->setFaults(faults);
  auto retimer = member(bmc, "PCIeRetimer_0");
  auto task = update(bmc, retimer.path);
  finishTasks(bmc);
  auto body = bmc.json(task);
  CHECK(body["TaskState"] == "Completed");
  CHECK(body["TaskStatus"] == "OK");
  CHECK(versionOf(bmc, retimer.path) == retimer.version);
}

TEST_CASE("downgrade_needs_force: a lower version is refused unless ForceUpdate is set") {
  Bmc bmc("dgx-h100");
  bmc.serveImages({{kImage, packageImage("0.0.1")}});
  sim::BehaviourFaults faults;
  faults.downgradeNeedsForce = true;
  bmc.model->setFaults(faults);
  auto retimer = member(bmc, "PCIeRetimer_0");
  auto refused =
      bmc.send("POST", bmc.behaviour().simpleUpdateTarget,
               {{"ImageURI", kImage}, {"Targets", nlohmann::json::array({retimer.path})}});
  REQUIRE(refused.status == 400);
  CHECK_THAT(extendedInfo(refused)["Message"].get<std::string>(),
             Catch::Contains("ForceUpdate") && Catch::Contains(retimer.version));
  CHECK(bmc.model->snapshot()["tasks"].size() == 0);

  update(bmc, retimer.path, /*force=*/true);
  finishTasks(bmc);
  CHECK(versionOf(bmc, retimer.path) == "0.0.1");
}

TEST_CASE("The BMC's own firmware restarts it: away for bmc_restart_seconds, then updated") {
  Bmc bmc("dgx-h100");
  bmc.serveImages({{kImage, packageImage("24.10.1")}});
  sim::BehaviourFaults faults;
  faults.bmcRestartSeconds = 90;
  bmc.model->setFaults(faults);
  auto self = member(bmc, "HostBMC");
  update(bmc, self.path);
  finishTasks(bmc);
  CHECK_FALSE(bmc.model->reachable());
  bmc.clock.advance(60);
  CHECK_FALSE(bmc.model->reachable());
  bmc.clock.advance(31);
  CHECK(bmc.model->reachable());
  CHECK(versionOf(bmc, self.path) == "24.10.1");
}

TEST_CASE("away_after_update_minutes: the BMC stays unreachable that long after an update") {
  Bmc bmc("dgx-h100");
  bmc.serveImages({{kImage, packageImage("99.1.2")}});
  sim::BehaviourFaults faults;
  faults.awayAfterUpdateMinutes = 10;
  bmc.model->setFaults(faults);
  update(bmc, member(bmc, "PCIeRetimer_0").path);
  CHECK(bmc.model->reachable());  // while the task runs
  finishTasks(bmc);
  CHECK_FALSE(bmc.model->reachable());
  bmc.clock.advance(9 * 60);
  CHECK_FALSE(bmc.model->reachable());
  bmc.clock.advance(61);
  CHECK(bmc.model->reachable());
}

TEST_CASE("HGX GPU firmware shows only after an AC power cycle of the chassis") {
  Bmc bmc("dgx-h100");
  bmc.serveImages({{kImage, packageImage("96.00.9A.00.01")}});
  auto gpu = member(bmc, "HGX_FW_GPU_SXM_1");
  update(bmc, gpu.path);
  finishTasks(bmc);
  CHECK(versionOf(bmc, gpu.path) == gpu.version);
  // A host reset is not enough.
  REQUIRE(bmc.send("POST", bmc.behaviour().resetTarget, {{"ResetType", "ForceRestart"}}).status ==
          204);
  CHECK(versionOf(bmc, gpu.path) == gpu.version);
  auto chassis = chassisResetTarget(bmc);
  REQUIRE(bmc.send("POST", chassis, {{"ResetType", "ForceOff"}}).status == 204);
  CHECK(versionOf(bmc, gpu.path) == gpu.version);
  REQUIRE(bmc.send("POST", chassis, {{"ResetType", "On"}}).status == 204);
  CHECK(versionOf(bmc, gpu.path) == "96.00.9A.00.01");
}

TEST_CASE("Chassis.Reset refuses a ResetType its chassis does not list") {
  Bmc bmc("dgx-h100");
  auto r = bmc.send("POST", chassisResetTarget(bmc), {{"ResetType", "Nudge"}});
  CHECK(r.status == 400);
  CHECK(extendedInfo(r)["MessageId"].get<std::string>().find("ActionParameterValueNotInList") !=
        std::string::npos);
}

TEST_CASE("On Dell every firmware task is also a job that ends Completed") {
  Bmc bmc("dell-r750");
  REQUIRE_FALSE(bmc.behaviour().dellJobsPath.empty());
  bmc.serveImages({{kImage, packageImage("7.10.30.00")}});
  auto task = update(bmc, member(bmc, "PSU.Slot.1").path);
  auto id = task.substr(task.rfind('/') + 1);
  CHECK(id.rfind("JID_", 0) == 0);
  auto job = bmc.behaviour().dellJobsPath + "/" + id;
  CHECK(bmc.json(job)["JobState"] != "Completed");
  finishTasks(bmc);
  CHECK(bmc.json(job)["JobState"] == "Completed");
  CHECK(bmc.json(job)["PercentComplete"] == 100);
}

TEST_CASE("firmware_slowdown slows the GPUs while the named component runs that version") {
  std::vector<sim::FirmwareSlowdown> rules = {{"HGX_FW_GPU", "96.00.A0.00.01", 6}};
  std::vector<sim::FirmwareVersion> inventory = {
      {"/p/HostBMC_0", "HostBMC_0", "HostBMC_0", "24.10.1"},
      {"/p/HGX_FW_GPU_SXM_1", "HGX_FW_GPU_SXM_1", "HGX_FW_GPU_SXM_1", "96.00.9A.00.01"}};
  CHECK(sim::firmwareGpuSpeed(rules, inventory) == Approx(1.0));
  inventory[1].version = "96.00.A0.00.01";
  CHECK(sim::firmwareGpuSpeed(rules, inventory) == Approx(0.94));
  CHECK(sim::firmwareGpuSpeed({}, inventory) == Approx(1.0));
}

// Profiles load, expose the vendor behaviour read from the recording, and static mode serves the
// recorded values verbatim.
#include <filesystem>
#include <fstream>

#include <catch2/catch.hpp>

#include "simulator/support/model_support.hpp"

using namespace modeltest;

TEST_CASE("Every shipped profile loads with its host system and actions") {
  for (const auto& name : sim::profileNames()) {
    INFO(name);
    auto p = profile(name);
    const auto& b = p->behaviour;
    CHECK_FALSE(b.hostSystems.empty());
    CHECK_FALSE(b.resetTarget.empty());
    CHECK_FALSE(b.resetTypes.empty());
    CHECK_FALSE(b.biosSettingsPath.empty());
    CHECK_FALSE(b.sessionsPath.empty());
    CHECK_FALSE(b.tasksPath.empty());
    CHECK_FALSE(b.accountsPath.empty());
    CHECK_FALSE(b.subscriptionsPath.empty());
    CHECK_FALSE(b.simpleUpdateTarget.empty());
    CHECK_FALSE(b.mainChassis.empty());
    CHECK_FALSE(b.bmcEthernetInterface.empty());
    Bmc bmc(name);
    CHECK(bmc.get("/redfish/v1", false).status == 200);
    CHECK(bmc.get(b.hostSystems.front()).status == 200);
  }
}

TEST_CASE("Vendor settings objects and targets come from the recording") {
  CHECK(profile("dell-r750")->behaviour.biosSettingsPath ==
        "/redfish/v1/Systems/System.Embedded.1/Bios/Settings");
  CHECK(profile("dgx-h100")->behaviour.biosSettingsPath == "/redfish/v1/Systems/DGX/Bios/SD");
  CHECK(profile("lenovo-sr670v2")->behaviour.biosSettingsPath ==
        "/redfish/v1/Systems/1/Bios/Pending");
  CHECK(profile("dgx-h100")->behaviour.simpleUpdateTarget ==
        "/redfish/v1/UpdateService/Actions/SimpleUpdate");
  CHECK(profile("supermicro-hgx-h100")->behaviour.resetTypes.size() == 8);  // from ActionInfo
  CHECK(profile("lenovo-sr670v2")->behaviour.gpus.size() == 8);
  CHECK(profile("dgx-h100")->behaviour.gpus.size() == 8);
  CHECK_FALSE(profile("dell-r750")->behaviour.secureErase.empty());
}

TEST_CASE("Unknown paths and unknown profiles are errors") {
  Bmc bmc("dell-r750");
  auto missing = bmc.get("/redfish/v1/Systems/Nope");
  CHECK(missing.status == 404);
  CHECK(extendedInfo(missing)["MessageId"].get<std::string>().ends_with("ResourceMissingAtURI"));
  CHECK_FALSE(
      sim::loadProfile("no-such-profile", PROVISIONER_TEST_SOURCE_DIR "/simulator/profiles"));
  CHECK(bmc.get("/redfish", false).status == 200);
}

TEST_CASE("loadDumpProfile of each recorded dump serves the exact recorded serials") {
  const std::string mockups = PROVISIONER_MOCKUPS_DIR;
  if (!std::filesystem::exists(mockups)) {
    WARN("recorded dumps absent; skipped");
    return;
  }
  for (const auto* dump : {"dell", "hpe", "lenovo", "supermicro", "nvidia_viking"}) {
    INFO(dump);
    auto loaded = sim::loadDumpProfile(mockups + "/" + dump);
    REQUIRE(loaded);
    auto p = loaded.value();
    const auto& host = p->behaviour.hostSystems.at(0);
    std::ifstream file(mockups + "/" + dump + host + "/index.json");
    auto recorded = nlohmann::json::parse(file, nullptr, false);
    sim::SimClock clock;
    sim::BmcModel model(p, "static", 1, kCredentials, clock, false);
    CHECK(model.identity().systemSerial == recorded["SerialNumber"].get<std::string>());
    CHECK(model.identity().uuid == recorded["UUID"].get<std::string>());
  }
}

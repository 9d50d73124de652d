// The BMC's own record of what it accepted (snapshot "sideEffects"): the chaos harness finds a
// second BIOS PATCH, boot override, password change, update or erase there, not in the service.
#include <catch2/catch.hpp>

#include "simulator/support/model_support.hpp"

using namespace modeltest;

namespace {

nlohmann::json effects(Bmc& bmc) {
  return bmc.model->snapshot()["sideEffects"];
}

std::string loginAccount(Bmc& bmc) {
  auto accounts = bmc.json(bmc.behaviour().accountsPath);
  for (const auto& member : accounts["Members"]) {
    auto path = member["@odata.id"].get<std::string>();
    if (bmc.json(path)["UserName"] == kCredentials.username) return path;
  }
  return {};
}

}  // namespace

TEST_CASE("Accepted changes are recorded in order with what they were for") {
  Bmc bmc("dgx-h100");
  const auto& b = bmc.behaviour();
  auto system = b.hostSystems.front();
  REQUIRE(bmc.send("PATCH", b.biosSettingsPath, {{"Attributes", {{"TpmSupport", "Disable"}}}},
                   {{"if-match", "*"}})
              .status == 204);
  nlohmann::json boot = {
      {"Boot", {{"BootSourceOverrideTarget", "Pxe"}, {"BootSourceOverrideEnabled", "Once"}}}};
  REQUIRE(bmc.send("PATCH", system, boot, {{"if-match", "*"}}).status / 100 == 2);
  REQUIRE(bmc.send("POST", b.resetTarget, {{"ResetType", "ForceRestart"}}).status == 204);
  REQUIRE(bmc.get(system).status == 200);  // reads change nothing

  auto record = effects(bmc);
  REQUIRE(record.size() == 3);
  CHECK(record[0]["seq"] == 1);
  CHECK(record[0]["kind"] == "bios_patch");
  CHECK(record[1]["kind"] == "boot_override");
  CHECK(record[1]["key"] == "Pxe:Once");
  CHECK(record[2]["kind"] == "host_reset");
  CHECK(record[2]["key"] == "ForceRestart");
  CHECK(record[2]["seq"] == 3);
}

TEST_CASE("The same BIOS settings asked twice give the same key; other settings another") {
  Bmc bmc("dgx-h100");
  const auto& path = bmc.behaviour().biosSettingsPath;
  nlohmann::json twoSettings = {{"TpmSupport", "Disable"}, {"SriovSupport", "Enabled"}};
  REQUIRE(bmc.send("PATCH", path, {{"Attributes", twoSettings}}, {{"if-match", "*"}}).status ==
          204);
  // The same members in another order: still the same request.
  REQUIRE(bmc.send("PATCH", path,
                   nlohmann::json::parse(
                       R"({"Attributes": {"SriovSupport": "Enabled",
                                                          "TpmSupport": "Disable"}})"),
                   {{"if-match", "*"}})
              .status == 204);
  REQUIRE(bmc.send("PATCH", path, {{"Attributes", {{"TpmSupport", "Enable"}}}}, {{"if-match", "*"}})
              .status == 204);
  auto record = effects(bmc);
  REQUIRE(record.size() == 3);
  CHECK(record[0]["key"] == record[1]["key"]);
  CHECK(record[0]["key"] != record[2]["key"]);
}

TEST_CASE("A refused request is not a side effect") {
  Bmc bmc("dgx-h100");
  const auto& path = bmc.behaviour().biosSettingsPath;
  // AMI/DGX requires If-Match: 428 without it.
  REQUIRE(bmc.send("PATCH", path, {{"Attributes", {{"TpmSupport", "Disable"}}}}).status == 428);
  REQUIRE(bmc.send("POST", bmc.behaviour().resetTarget, {{"ResetType", "Sideways"}}).status == 400);
  CHECK(effects(bmc).empty());
}

TEST_CASE("A password change is recorded by account and digest, never in clear") {
  Bmc bmc("dell-r750");
  auto account = loginAccount(bmc);
  REQUIRE_FALSE(account.empty());
  REQUIRE(bmc.send("PATCH", account, {{"Password", "N3w-Secret"}}).status == 204);
  auto record = effects(bmc);
  REQUIRE(record.size() == 1);
  CHECK(record[0]["kind"] == "account_patch");
  auto key = record[0]["key"].get<std::string>();
  CHECK(key.starts_with(account + ":"));
  CHECK(key.find("N3w-Secret") == std::string::npos);
  CHECK(bmc.model->snapshot().dump().find("N3w-Secret") == std::string::npos);
}

TEST_CASE("Firmware updates and secure erases are recorded with their targets") {
  Bmc dgx("dgx-h100");
  dgx.serveImages({{"http://127.0.0.1:9/fw.fwpkg", packageImage("24.10.1")}});
  auto target = dgx.model->firmwareVersions().front().path;
  nlohmann::json body = {{"ImageURI", "http://127.0.0.1:9/fw.fwpkg"},
                         {"Targets", nlohmann::json::array({target})}};
  REQUIRE(dgx.send("POST", dgx.behaviour().simpleUpdateTarget, body).status == 202);
  auto record = effects(dgx);
  REQUIRE(record.size() == 1);
  CHECK(record[0]["kind"] == "firmware_update");
  CHECK(record[0]["key"] == target + "@24.10.1");
  // Once the task is done (seen by the next request), the update's window closes: when the
  // BMC had the new image in place, which may be before anyone looked.
  const double accepted = record[0]["at"].get<double>();
  dgx.clock.advance(dgx.behaviour().firmwareTaskSeconds + 50);
  dgx.json("/redfish/v1/TaskService/Tasks");
  record = effects(dgx);
  REQUIRE(record.size() == 2);
  CHECK(record[1]["kind"] == "firmware_applied");
  CHECK(record[1]["key"] == target + "@24.10.1");
  CHECK(record[1]["at"].get<double>() > accepted + dgx.behaviour().firmwareTaskSeconds - 0.01);
  CHECK(record[1]["at"].get<double>() < accepted + dgx.behaviour().firmwareTaskSeconds + 50);

  Bmc dell("dell-r750");
  REQUIRE_FALSE(dell.behaviour().secureErase.empty());
  const auto& [eraseTarget, drive] = *dell.behaviour().secureErase.begin();
  REQUIRE(dell.send("POST", eraseTarget, nlohmann::json::object()).status == 202);
  record = effects(dell);
  REQUIRE(record.size() == 1);
  CHECK(record[0]["kind"] == "secure_erase");
  CHECK(record[0]["key"] == drive);
}

// BIOS settings: validation against the registry, pending until a reset, ResetBios.
#include <catch2/catch.hpp>

#include "simulator/support/model_support.hpp"

using namespace modeltest;

namespace {

sim::HttpResponse patchBios(Bmc& bmc, const nlohmann::json& attributes,
                            sim::HeaderList headers = {}) {
  return bmc.send("PATCH", bmc.behaviour().biosSettingsPath, {{"Attributes", attributes}},
                  std::move(headers));
}

void restart(Bmc& bmc) {
  auto r = bmc.send("POST", bmc.behaviour().resetTarget, {{"ResetType", "ForceRestart"}});
  REQUIRE(r.status == 204);
}

nlohmann::json attributes(Bmc& bmc) {
  return bmc.json(bmc.behaviour().biosPath)["Attributes"];
}

}  // namespace

TEST_CASE("DGX BIOS PATCH stays pending in Bios/SD and applies after a reset") {
  Bmc bmc("dgx-h100");
  REQUIRE(attributes(bmc)["TpmSupport"] == "Enable");
  auto r = patchBios(bmc, {{"TpmSupport", "Disable"}}, {{"if-match", "*"}});
  CHECK(r.status == 204);
  CHECK(bmc.json(bmc.behaviour().biosSettingsPath)["Attributes"]["TpmSupport"] == "Disable");
  CHECK(attributes(bmc)["TpmSupport"] == "Enable");
  restart(bmc);
  CHECK(attributes(bmc)["TpmSupport"] == "Disable");
  CHECK(bmc.model->snapshot()["bios"]["pending"].empty());
}

TEST_CASE("Refused BIOS attributes name the attribute in vendor-style ExtendedInfo") {
  Bmc bmc("dell-r750");
  auto check = [&](const nlohmann::json& attrs, const std::string& id, const std::string& name) {
    auto r = patchBios(bmc, attrs);
    CHECK(r.status == 400);
    auto info = extendedInfo(r);
    CHECK(info["MessageId"].get<std::string>() == "Base.1.12." + id);
    CHECK(info["RelatedProperties"][0] == "#/Attributes/" + name);
    CHECK(info["Message"].get<std::string>().find(name) != std::string::npos);
  };
  check({{"NoSuchAttribute", "x"}}, "PropertyUnknown", "NoSuchAttribute");
  check({{"SystemModelName", "x"}}, "PropertyNotWritable", "SystemModelName");
  check({{"BootMode", 5}}, "PropertyValueTypeError", "BootMode");
  check({{"BootMode", "Sideways"}}, "PropertyValueNotInList", "BootMode");
  CHECK(bmc.model->snapshot()["bios"]["pending"].empty());
}

TEST_CASE("Dell applies pending BIOS settings only once a configuration job exists") {
  Bmc bmc("dell-r750");
  auto current = attributes(bmc)["BootMode"].get<std::string>();
  auto wanted = current == "Uefi" ? "Bios" : "Uefi";
  CHECK(patchBios(bmc, {{"BootMode", wanted}}).status == 204);
  restart(bmc);
  CHECK(attributes(bmc)["BootMode"] == current);  // no job: still pending
  auto job = bmc.send("POST", bmc.behaviour().dellJobsPath,
                      {{"TargetSettingsURI", bmc.behaviour().biosSettingsPath}});
  CHECK(job.status == 200);
  auto location = headerOf(job, "Location");
  CHECK(bmc.json(location)["JobState"] == "Scheduled");
  restart(bmc);
  CHECK(attributes(bmc)["BootMode"] == wanted);
  CHECK(bmc.json(location)["JobState"] == "Completed");
}

TEST_CASE("Lenovo without a registry validates against the current attribute types") {
  Bmc bmc("lenovo-sr670v2");
  auto attrs = attributes(bmc);
  std::string stringAttr;
  for (const auto& [name, value] : attrs.items()) {
    if (value.is_string()) {
      stringAttr = name;
      break;
    }
  }
  REQUIRE_FALSE(stringAttr.empty());
  CHECK(patchBios(bmc, {{stringAttr, 12}}).status == 400);
  CHECK(patchBios(bmc, {{"Bogus_Attribute", "x"}}).status == 400);
  CHECK(patchBios(bmc, {{stringAttr, "changed"}}).status == 204);
  restart(bmc);
  CHECK(attributes(bmc)[stringAttr] == "changed");
}

TEST_CASE("ResetBios restores the recorded attributes at the next reset") {
  Bmc bmc("dgx-h100");
  CHECK(patchBios(bmc, {{"TpmSupport", "Disable"}}, {{"if-match", "*"}}).status == 204);
  restart(bmc);
  REQUIRE(attributes(bmc)["TpmSupport"] == "Disable");
  CHECK(bmc.send("POST", bmc.behaviour().resetBiosTarget, nlohmann::json::object()).status == 204);
  restart(bmc);
  CHECK(attributes(bmc)["TpmSupport"] == "Enable");
}

// Power transitions on the simulated clock, reset validation, boot override and boot events.
#include <catch2/catch.hpp>

#include "simulator/support/model_support.hpp"

using namespace modeltest;

namespace {

std::string power(Bmc& bmc) {
  return bmc.json(bmc.behaviour().hostSystems.front())["PowerState"].get<std::string>();
}

sim::HttpResponse reset(Bmc& bmc, const std::string& type) {
  return bmc.send("POST", bmc.behaviour().resetTarget, {{"ResetType", type}});
}

}  // namespace

TEST_CASE("ForceOff then On goes PoweringOn then On after the vendor's delay") {
  Bmc bmc("lenovo-sr670v2");
  CHECK(power(bmc) == "On");
  CHECK(reset(bmc, "ForceOff").status == 204);
  CHECK(power(bmc) == "Off");
  CHECK(reset(bmc, "On").status == 204);
  CHECK(power(bmc) == "PoweringOn");
  bmc.clock.advance(bmc.behaviour().powerOnSeconds - 1);
  CHECK(power(bmc) == "PoweringOn");
  bmc.clock.advance(2);
  CHECK(power(bmc) == "On");
}

TEST_CASE("An invalid ResetType is refused with ActionParameterValueNotInList") {
  Bmc bmc("supermicro-hgx-h100");
  auto refused = reset(bmc, "Explode");
  CHECK(refused.status == 400);
  auto info = extendedInfo(refused);
  CHECK(info["MessageId"].get<std::string>().ends_with("ActionParameterValueNotInList"));
  CHECK(info["MessageArgs"][0] == "Explode");
  CHECK(power(bmc) == "On");
}

TEST_CASE("Dell answers a redundant power action with 409") {
  Bmc bmc("dell-r750");
  CHECK(reset(bmc, "On").status == 409);
  CHECK(reset(bmc, "ForceOff").status == 204);
  CHECK(reset(bmc, "ForceOff").status == 409);
}

TEST_CASE("A Once boot override produces a BootEvent at power-on and then clears") {
  Bmc bmc("dell-r750");
  std::vector<sim::BootEvent> events;
  bmc.model->setBootObserver([&](const sim::BootEvent& e) { events.push_back(e); });
  const auto& system = bmc.behaviour().hostSystems.front();
  auto patched = bmc.send("PATCH", system,
                          {{"Boot",
                            {{"BootSourceOverrideTarget", "UefiHttp"},
                             {"BootSourceOverrideEnabled", "Once"},
                             {"HttpBootUri", "http://10.0.0.1/boot.ipxe"}}}});
  CHECK(patched.status == 204);
  CHECK(bmc.json(system)["Boot"]["BootSourceOverrideEnabled"] == "Once");
  CHECK(reset(bmc, "ForceRestart").status == 204);
  REQUIRE(events.size() == 1);
  CHECK(events[0].bmcId == "r01-n01");
  CHECK(events[0].target == "UefiHttp");
  CHECK(events[0].httpBootUri == "http://10.0.0.1/boot.ipxe");
  CHECK(bmc.json(system)["Boot"]["BootSourceOverrideEnabled"] == "Disabled");
  CHECK(reset(bmc, "ForceRestart").status == 204);
  REQUIRE(events.size() == 2);
  CHECK(events[1].target == "None");
}

TEST_CASE("Boot override values are validated against the allowable values") {
  Bmc bmc("lenovo-sr670v2");
  const auto& system = bmc.behaviour().hostSystems.front();
  auto refused = bmc.send("PATCH", system, {{"Boot", {{"BootSourceOverrideTarget", "Floppy"}}}});
  CHECK(refused.status == 400);
  CHECK(extendedInfo(refused)["RelatedProperties"][0] == "#/Boot/BootSourceOverrideTarget");
  refused = bmc.send("PATCH", system, {{"Boot", {{"BootSourceOverrideEnabled", "Continuous"}}}});
  CHECK(refused.status == 400);  // Lenovo allows Once and Disabled only
}

TEST_CASE("Supermicro refuses a boot override without the UEFI mode in the same PATCH") {
  Bmc bmc("supermicro-hgx-h100");
  const auto& system = bmc.behaviour().hostSystems.front();
  auto refused = bmc.send(
      "PATCH", system,
      {{"Boot", {{"BootSourceOverrideTarget", "Pxe"}, {"BootSourceOverrideEnabled", "Once"}}}});
  CHECK(refused.status == 400);
  CHECK(extendedInfo(refused)["MessageArgs"][0] == "BootSourceOverrideMode");
  CHECK(bmc.send("PATCH", system,
                 {{"Boot",
                   {{"BootSourceOverrideTarget", "Pxe"},
                    {"BootSourceOverrideEnabled", "Once"},
                    {"BootSourceOverrideMode", "UEFI"}}}})
            .status == 204);
}

TEST_CASE("An ignored boot override boots from disk") {
  Bmc bmc("hpe-dl385");
  sim::BehaviourFaults faults;
  faults.ignoreBootOverride = true;
  bmc.model->setFaults(faults);
  std::vector<sim::BootEvent> events;
  bmc.model->setBootObserver([&](const sim::BootEvent& e) { events.push_back(e); });
  const auto& system = bmc.behaviour().hostSystems.front();
  sim::HttpResponse r;
  for (int i = 0; i < 20 && (i == 0 || r.status == 401); ++i) {
    r = bmc.send(
        "PATCH", system,
        {{"Boot", {{"BootSourceOverrideTarget", "Pxe"}, {"BootSourceOverrideEnabled", "Once"}}}});
  }
  CHECK(r.status == 204);
  for (int i = 0; i < 20 && (i == 0 || r.status == 401); ++i) r = reset(bmc, "ForceRestart");
  REQUIRE(events.size() == 1);
  CHECK(events[0].target == "Hdd");
}

TEST_CASE("DGX PATCH needs If-Match and accepts only the current ETag or star") {
  Bmc bmc("dgx-h100");
  const auto& system = bmc.behaviour().hostSystems.front();
  nlohmann::json body = {
      {"Boot", {{"BootSourceOverrideTarget", "Pxe"}, {"BootSourceOverrideEnabled", "Once"}}}};
  auto refused = bmc.send("PATCH", system, body);
  CHECK(refused.status == 428);
  CHECK(bmc.send("PATCH", system, body, {{"if-match", "\"stale\""}}).status == 412);
  auto etag = bmc.etag(system);
  CHECK(bmc.json(system)["@odata.etag"] == etag);
  CHECK(bmc.send("PATCH", system, body, {{"if-match", etag}}).status == 204);
  auto changed = bmc.etag(system);
  CHECK(changed != etag);
  CHECK(bmc.send("PATCH", system, body, {{"if-match", etag}}).status == 412);
  CHECK(bmc.send("PATCH", system, body, {{"if-match", "*"}}).status == 204);
}

TEST_CASE("The HGX baseboard answers 503 while the host is off") {
  Bmc bmc("dgx-h100");
  const std::string hgx = "/redfish/v1/Systems/HGX_Baseboard_0";
  CHECK(bmc.get(hgx).status == 200);
  CHECK(reset(bmc, "ForceOff").status == 204);
  auto off = bmc.get(hgx + "/Processors");
  CHECK(off.status == 503);
  CHECK(headerOf(off, "Retry-After") == "30");
  CHECK(reset(bmc, "On").status == 204);
  bmc.clock.advance(bmc.behaviour().powerOnSeconds + 1);
  CHECK(bmc.get(hgx).status == 200);
}

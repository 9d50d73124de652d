// BIOS: registry discovery on the recorded dumps, validation errors, diff-only PATCH with If-Match.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "redfish/bios.hpp"
#include "redfish/errors.hpp"
#include "redfish/support/mockup_client.hpp"

using nlohmann::json;
using redfish::Method;
using redfish::testing::jsonResponse;
using redfish::testing::MockupClient;
using redfish::testing::mockupDir;

namespace {
const std::string kDellSystem = "/redfish/v1/Systems/System.Embedded.1";
}

TEST_CASE("BIOS settings objects of every dump", "[ops][bios]") {
  struct Case {
    const char* vendor;
    const char* system;
    const char* settings;
  };
  for (const Case& c :
       {Case{"dell", "/redfish/v1/Systems/System.Embedded.1",
             "/redfish/v1/Systems/System.Embedded.1/Bios/Settings"},
        Case{"hpe", "/redfish/v1/Systems/1", "/redfish/v1/systems/1/bios/settings/"},
        Case{"lenovo", "/redfish/v1/Systems/1", "/redfish/v1/Systems/1/Bios/Pending"},
        Case{"supermicro", "/redfish/v1/Systems/1", "/redfish/v1/Systems/1/Bios/SD"},
        Case{"nvidia_viking", "/redfish/v1/Systems/DGX", "/redfish/v1/Systems/DGX/Bios/SD"}}) {
    MockupClient client(mockupDir(c.vendor));
    auto bios = redfish::readBios(client, c.system);
    REQUIRE(bios);
    CHECK(bios->settingsPath == c.settings);
    CHECK_FALSE(bios->resetBiosTarget.empty());
  }
}

TEST_CASE("BIOS registry found through Registries including outside redfish v1", "[ops][bios]") {
  MockupClient supermicro(mockupDir("supermicro"));
  auto bios = redfish::readBios(supermicro, "/redfish/v1/Systems/1");
  REQUIRE(bios);
  auto registry = redfish::readBiosRegistry(supermicro, *bios);
  REQUIRE(registry);
  CHECK(registry->uri == "/registries/BiosAttributeRegistry.1.0.0.json");
  CHECK(registry->attributes.count("OptionROMMessages_002E") == 1);

  MockupClient dell(mockupDir("dell"));
  auto dellBios = redfish::readBios(dell, kDellSystem);
  REQUIRE(dellBios);
  auto dellRegistry = redfish::readBiosRegistry(dell, *dellBios);
  REQUIRE(dellRegistry);
  CHECK(dellRegistry->uri == "/redfish/v1/Systems/System.Embedded.1/Bios/BiosRegistry");
}

TEST_CASE("BIOS validation refuses each kind of bad attribute", "[ops][bios]") {
  MockupClient dell(mockupDir("dell"));
  auto bios = redfish::readBios(dell, kDellSystem);
  REQUIRE(bios);
  auto registry = redfish::readBiosRegistry(dell, *bios);
  REQUIRE(registry);
  auto codeOf = [&](const json& desired) {
    auto result = redfish::validateBiosAttributes(*registry, desired);
    return result ? std::string("ok") : result.error().code;
  };
  CHECK(codeOf({{"ProcVirtualization", "Disabled"}, {"AcPwrRcvryUserDelay", 300}}) == "ok");
  CHECK(codeOf({{"NoSuchKnob", "x"}}) == redfish::codes::kUnknownAttribute);
  CHECK(codeOf({{"SystemModelName", "x"}}) == redfish::codes::kReadOnly);
  CHECK(codeOf({{"ProcVirtualization", true}}) == redfish::codes::kWrongType);
  CHECK(codeOf({{"AcPwrRcvryUserDelay", "300"}}) == redfish::codes::kWrongType);
  CHECK(codeOf({{"AcPwrRcvryUserDelay", 601}}) == redfish::codes::kNotAllowed);
  auto notAllowed = redfish::validateBiosAttributes(*registry, {{"BootMode", "Legacy"}});
  REQUIRE_FALSE(notAllowed);
  CHECK(notAllowed.error().code == redfish::codes::kNotAllowed);
  CHECK(notAllowed.error().message.find("Bios, Uefi") != std::string::npos);
}

TEST_CASE("BIOS apply PATCHes only the diff with If-Match and apply time", "[ops][bios]") {
  MockupClient dell(mockupDir("dell"));
  const std::string settings = kDellSystem + "/Bios/Settings";
  dell.script(Method::kPatch, settings,
              jsonResponse(202, nullptr,
                           {{"location", "/redfish/v1/Managers/iDRAC.Embedded.1/Jobs/JID_1"}}));
  dell.script(Method::kGet, settings,
              jsonResponse(200, {{"@odata.id", settings}, {"Attributes", json::object()}},
                           {{"etag", "W/\"settings-7\""}}));
  json desired = {{"ProcVirtualization", "Disabled"}, {"LogicalProc", "Enabled"}};
  auto result = redfish::applyBiosSettings(dell, kDellSystem, desired, redfish::quirksFor("dell"));
  REQUIRE(result);
  CHECK(result->patched == json{{"ProcVirtualization", "Disabled"}});
  REQUIRE(result->job);
  CHECK(result->job->monitorUri == "/redfish/v1/Managers/iDRAC.Embedded.1/Jobs/JID_1");
  const auto sent = dell.sent();
  const auto patch = std::find_if(sent.begin(), sent.end(),
                                  [](const auto& s) { return s.method == Method::kPatch; });
  REQUIRE(patch != sent.end());
  CHECK(patch->target == settings);
  auto body = json::parse(patch->body);
  CHECK(body["Attributes"] == json{{"ProcVirtualization", "Disabled"}});
  CHECK(body["@Redfish.SettingsApplyTime"]["ApplyTime"] == "OnReset");
  CHECK(patch->header("If-Match") == "W/\"settings-7\"");
}

TEST_CASE("BIOS apply on Dell creates a config job when the PATCH made none",
          "[ops][bios][quirks]") {
  MockupClient dell(mockupDir("dell"));
  const std::string jobs = "/redfish/v1/Managers/iDRAC.Embedded.1/Oem/Dell/Jobs";
  dell.script(Method::kPost, jobs, jsonResponse(201, nullptr, {{"location", jobs + "/JID_42"}}));
  auto result = redfish::applyBiosSettings(dell, kDellSystem, {{"BootMode", "Bios"}},
                                           redfish::quirksFor("dell"));
  REQUIRE(result);
  REQUIRE(result->job);
  CHECK(result->job->monitorUri == jobs + "/JID_42");
  bool posted = false;
  for (const auto& s : dell.sent()) {
    if (s.method == Method::kPost && s.target == jobs) {
      posted = json::parse(s.body)["TargetSettingsURI"] == kDellSystem + "/Bios/Settings";
    }
  }
  CHECK(posted);
}

TEST_CASE("BIOS apply with nothing to change sends no PATCH", "[ops][bios]") {
  MockupClient dell(mockupDir("dell"));
  auto result = redfish::applyBiosSettings(dell, kDellSystem, {{"ProcVirtualization", "Enabled"}});
  REQUIRE(result);
  CHECK(result->patched.empty());
  CHECK(dell.countOf(Method::kPatch) == 0);
}

TEST_CASE("BIOS on the DGX PATCHes Bios SD with If-Match star", "[ops][bios][quirks]") {
  MockupClient dgx(mockupDir("nvidia_viking"));
  auto bios = redfish::readBios(dgx, "/redfish/v1/Systems/DGX");
  REQUIRE(bios);
  REQUIRE_FALSE(bios->attributes.empty());
  const std::string name = bios->attributes.items().begin().key();
  json desired = {{name, "changed-value"}};
  auto result = redfish::applyBiosSettings(dgx, "/redfish/v1/Systems/DGX", desired,
                                           redfish::quirksFor("ami"));
  REQUIRE(result);
  for (const auto& s : dgx.sent()) {
    if (s.method != Method::kPatch) continue;
    CHECK(s.target == "/redfish/v1/Systems/DGX/Bios/SD");
    CHECK(s.header("If-Match") == "*");
  }
  CHECK(dgx.countOf(Method::kPatch) == 1);
}

TEST_CASE("BIOS pending values and confirmation after reset", "[ops][bios]") {
  MockupClient lenovo(mockupDir("lenovo"));
  auto bios = redfish::readBios(lenovo, "/redfish/v1/Systems/1");
  REQUIRE(bios);
  auto pending = redfish::readPendingBios(lenovo, *bios);
  REQUIRE(pending);
  CHECK(pending->is_object());
  const std::string name = bios->attributes.items().begin().key();
  json same = {{name, bios->attributes[name]}};
  auto applied = redfish::biosNotApplied(lenovo, "/redfish/v1/Systems/1", same);
  REQUIRE(applied);
  CHECK(applied->empty());
  auto missing = redfish::biosNotApplied(lenovo, "/redfish/v1/Systems/1", {{name, "other"}});
  REQUIRE(missing);
  CHECK(*missing == std::vector<std::string>{name});
}

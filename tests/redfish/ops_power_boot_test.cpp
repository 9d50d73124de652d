// Reset type selection, the not-allowed error, Dell's 409, and one-time boot overrides.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "redfish/boot.hpp"
#include "redfish/errors.hpp"
#include "redfish/power.hpp"
#include "redfish/support/mockup_client.hpp"

using nlohmann::json;
using redfish::Method;
using redfish::PowerAction;
using redfish::testing::jsonResponse;
using redfish::testing::MockupClient;
using redfish::testing::mockupDir;
using redfish::testing::redfishError;

namespace {

json lastBody(const MockupClient& client, Method method) {
  json body;
  for (const auto& s : client.sent()) {
    if (s.method == method) body = json::parse(s.body);
  }
  return body;
}

}  // namespace

TEST_CASE("reset type chosen by preference from allowable values", "[ops][power]") {
  using Allowed = std::optional<std::vector<std::string>>;
  CHECK(*redfish::chooseResetType(PowerAction::kOn, Allowed({"ForceOn", "ForceOff"})) == "ForceOn");
  CHECK(*redfish::chooseResetType(PowerAction::kOff, Allowed({"ForceOff", "GracefulShutdown"})) ==
        "GracefulShutdown");
  CHECK(*redfish::chooseResetType(PowerAction::kOff, Allowed({"ForceOff"})) == "ForceOff");
  CHECK(*redfish::chooseResetType(PowerAction::kRestart, Allowed({"PowerCycle", "On"})) ==
        "PowerCycle");
  CHECK(*redfish::chooseResetType(PowerAction::kRestart, std::nullopt) == "GracefulRestart");
  auto refused = redfish::chooseResetType(PowerAction::kRestart, Allowed({"On", "ForceOff"}));
  REQUIRE_FALSE(refused);
  CHECK(refused.error().code == redfish::codes::kNotAllowed);
  CHECK(refused.error().message.find("On, ForceOff") != std::string::npos);
}

TEST_CASE("reset reads the DGX ActionInfo and posts an allowed type", "[ops][power]") {
  MockupClient dgx(mockupDir("nvidia_viking"));
  auto restart = redfish::resetSystem(dgx, "/redfish/v1/Systems/DGX", PowerAction::kRestart);
  REQUIRE(restart);
  CHECK(restart->resetType == "ForceRestart");  // the ActionInfo has no GracefulRestart
  CHECK(lastBody(dgx, Method::kPost) == json{{"ResetType", "ForceRestart"}});
  auto nmi = redfish::resetSystemWith(dgx, "/redfish/v1/Systems/DGX", "Nmi");
  REQUIRE_FALSE(nmi);
  CHECK(nmi.error().code == redfish::codes::kNotAllowed);
  CHECK(nmi.error().message.find("ForceOff, ForceRestart, GracefulShutdown, On") !=
        std::string::npos);
}

TEST_CASE("Dell answers 409 to a redundant power on and that is success", "[ops][power][quirks]") {
  MockupClient dell(mockupDir("dell"));
  const std::string target = "/redfish/v1/Systems/System.Embedded.1/Actions/ComputerSystem.Reset";
  dell.script(Method::kPost, target,
              redfishError(409, "Base.1.8.ResourceInUse", "Server is already powered ON."));
  auto generic =
      redfish::resetSystem(dell, "/redfish/v1/Systems/System.Embedded.1", PowerAction::kOn);
  REQUIRE_FALSE(generic);
  CHECK(generic.error().message.find("already powered ON") != std::string::npos);
  auto quirked = redfish::resetSystem(dell, "/redfish/v1/Systems/System.Embedded.1",
                                      PowerAction::kOn, redfish::quirksFor("dell"));
  REQUIRE(quirked);
  CHECK(quirked->alreadyInState);
}

TEST_CASE("PXE one-time boot PATCH with the system ETag", "[ops][boot]") {
  MockupClient hpe(mockupDir("hpe"));
  REQUIRE(redfish::setOneTimeBoot(hpe, "/redfish/v1/Systems/1", {redfish::BootTarget::kPxe, {}}));
  auto body = lastBody(hpe, Method::kPatch);
  CHECK(body["Boot"]["BootSourceOverrideTarget"] == "Pxe");
  CHECK(body["Boot"]["BootSourceOverrideEnabled"] == "Once");
  CHECK_FALSE(body["Boot"].contains("BootSourceOverrideMode"));
  for (const auto& s : hpe.sent()) {
    if (s.method == Method::kPatch) CHECK(s.header("If-Match") == "W/\"9B9F7D67\"");
  }
}

TEST_CASE("Supermicro UEFI HTTP boot sets the UEFI mode alongside", "[ops][boot][quirks]") {
  MockupClient smc(mockupDir("supermicro"));
  REQUIRE(redfish::setOneTimeBoot(smc, "/redfish/v1/Systems/1",
                                  {redfish::BootTarget::kUefiHttp, {}},
                                  redfish::quirksFor("supermicro")));
  auto body = lastBody(smc, Method::kPatch);
  CHECK(body["Boot"]["BootSourceOverrideTarget"] == "UefiHttp");
  CHECK(body["Boot"]["BootSourceOverrideMode"] == "UEFI");
}

TEST_CASE("boot target not advertised is refused before any PATCH", "[ops][boot]") {
  MockupClient lenovo(mockupDir("lenovo"));
  auto result = redfish::setOneTimeBoot(lenovo, "/redfish/v1/Systems/1",
                                        {redfish::BootTarget::kUefiHttp, "http://x/boot.efi"});
  REQUIRE_FALSE(result);
  CHECK(result.error().code == redfish::codes::kNotAllowed);
  CHECK(result.error().message.find("Pxe") != std::string::npos);
  CHECK(lenovo.countOf(Method::kPatch) == 0);
}

// The one component matching rule: software_id exact, pattern a case-insensitive substring of Id
// or Name; bad rules name their field.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "workflows/firmware/component_rule.hpp"
#include "workflows/firmware/version_compare.hpp"

namespace fw = workflows::firmware;
using nlohmann::json;

namespace {

fw::FirmwareMember member(std::string id, std::string name, std::string software_id) {
  fw::FirmwareMember m;
  m.path = "/redfish/v1/UpdateService/FirmwareInventory/" + id;
  m.id = std::move(id);
  m.name = std::move(name);
  m.software_id = std::move(software_id);
  m.version = "1.0";
  return m;
}

}  // namespace

TEST_CASE("A software_id rule matches the SoftwareId exactly", "[unit][firmware]") {
  auto rule = fw::parseComponentRule(json{{"software_id", "0x2330"}}, "match");
  REQUIRE(rule);
  CHECK(fw::matches(*rule, member("HGX_FW_GPU_SXM_1", "GPU 1", "0x2330")));
  CHECK_FALSE(fw::matches(*rule, member("HGX_FW_GPU_SXM_1", "GPU 1", "0x23301")));
  CHECK_FALSE(fw::matches(*rule, member("0x2330", "0x2330", "")));
}

TEST_CASE("A pattern rule is a case-insensitive substring of Id or Name", "[unit][firmware]") {
  auto rule = fw::parseComponentRule(json{{"pattern", "bmc"}}, "match");
  REQUIRE(rule);
  CHECK(fw::matches(*rule, member("BMC_Firmware", "", "")));
  CHECK(fw::matches(*rule, member("fw0", "Baseboard bmc image", "")));
  CHECK_FALSE(fw::matches(*rule, member("BIOS", "System BIOS", "bmc")));
  const std::vector<fw::FirmwareMember> all = {member("BMC", "", ""), member("BIOS", "", ""),
                                               member("bmc_backup", "", "")};
  CHECK(fw::matchingMembers(*rule, all).size() == 2);
}

TEST_CASE("Bad component rules are refused naming the field", "[unit][firmware]") {
  auto unknown = fw::parseComponentRule(json{{"regex", "B.C"}}, "models.DGX H100.bmc.match");
  REQUIRE_FALSE(unknown);
  CHECK(unknown.error().code == "invalid_component_rule");
  CHECK(unknown.error().field == "models.DGX H100.bmc.match");
  auto both = fw::parseComponentRule(json{{"pattern", "a"}, {"software_id", "b"}}, "match");
  REQUIRE_FALSE(both);
  CHECK(both.error().field == "match");
  auto empty = fw::parseComponentRule(json{{"pattern", ""}}, "match");
  REQUIRE_FALSE(empty);
  CHECK(empty.error().field == "match.pattern");
  auto number = fw::parseComponentRule(json{{"software_id", 7}}, "match");
  REQUIRE_FALSE(number);
  CHECK(number.error().field == "match.software_id");
  CHECK_FALSE(fw::parseComponentRule(json("BMC"), "match"));
}

TEST_CASE("Component names follow one pattern", "[unit][firmware]") {
  CHECK(fw::isComponentName("bmc"));
  CHECK(fw::isComponentName("nic-dpu_2"));
  CHECK_FALSE(fw::isComponentName("BMC"));
  CHECK_FALSE(fw::isComponentName("2bmc"));
  CHECK_FALSE(fw::isComponentName(""));
}

TEST_CASE("The shared version order is the lifecycle's", "[unit][firmware]") {
  CHECK(fw::compareFirmwareVersions("24.09.17", "24.10.1") < 0);
  CHECK(fw::compareFirmwareVersions("01.01.03", "1.1.3") == 0);
  CHECK(fw::versionBelow("2.72", "2.100"));
}

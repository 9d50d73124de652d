// Untrusted BMC input during the crawl: malformed, truncated, wrongly typed, deeply nested
// bodies, missing members, the HGX 503 while off, HPE duplicate paths. Never a crash.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "redfish/crawl.hpp"
#include "redfish/errors.hpp"
#include "redfish/identity.hpp"
#include "redfish/quirks.hpp"
#include "redfish/support/mockup_client.hpp"

using nlohmann::json;
using redfish::Method;
using redfish::testing::jsonResponse;
using redfish::testing::MockupClient;
using redfish::testing::mockupDir;
using redfish::testing::redfishError;

namespace {

redfish::Response raw(long status, std::string body) {
  redfish::Response response;
  response.status = status;
  response.body = std::move(body);
  return response;
}

}  // namespace

TEST_CASE("malformed service root fails the crawl with a typed error", "[ops][robustness]") {
  for (const std::string& body :
       {std::string("{\"Systems\": {\"@odata.id\": \"/redf"), std::string("not json"),
        std::string(""), std::string(200, '[') + std::string(200, ']')}) {
    auto client = std::make_shared<MockupClient>(mockupDir("dell"));
    client->script(Method::kGet, "/redfish/v1", raw(200, body));
    auto result = redfish::crawlInventory(client);
    REQUIRE_FALSE(result);
    CHECK(result.error().code == redfish::codes::kMalformed);
  }
}

TEST_CASE("wrong types in a system read as absent and never crash", "[ops][robustness]") {
  auto client = std::make_shared<MockupClient>(mockupDir("hpe"));
  client->script(
      Method::kGet, "/redfish/v1/Systems/1",
      jsonResponse(200,
                   {{"@odata.id", "/redfish/v1/Systems/1"},
                    {"Id", 42},
                    {"SerialNumber", json::array({1, 2})},
                    {"Processors", "not-a-link"},
                    {"Memory", {{"@odata.id", 7}}},
                    {"Boot", {{"BootSourceOverrideTarget@Redfish.AllowableValues", {{"x", 1}}}}},
                    {"Storage", nullptr}}));
  auto result = redfish::crawlInventory(client);
  REQUIRE(result);
  REQUIRE(result->systems.size() == 1);
  CHECK(result->systems[0].serialNumber.empty());
  CHECK(result->systems[0].processors.empty());
}

TEST_CASE("a truncated member body is a warning and a truncated system an error",
          "[ops][robustness]") {
  auto client = std::make_shared<MockupClient>(mockupDir("lenovo"));
  client->script(Method::kGet, "/redfish/v1/Systems/1/Processors/GPU3",
                 raw(200, R"({"Id": "GPU3", "ProcessorType": "GP)"));
  auto result = redfish::crawlInventory(client);
  REQUIRE(result);
  CHECK(result->gpus.size() == 7);
  REQUIRE(result->warnings.size() == 1);
  CHECK(result->warnings[0].find("GPU3") != std::string::npos);

  auto broken = std::make_shared<MockupClient>(mockupDir("lenovo"));
  broken->script(Method::kGet, "/redfish/v1/Systems/1", raw(200, R"({"Id": "1", "Ser)"));
  auto failed = redfish::crawlInventory(broken);
  REQUIRE_FALSE(failed);
  CHECK(failed.error().code == redfish::codes::kMalformed);
}

TEST_CASE("deep nesting from a BMC is refused not recursed", "[ops][robustness]") {
  auto client = std::make_shared<MockupClient>(mockupDir("dell"));
  std::string deep =
      "{\"Id\": \"x\", \"Oem\": " + std::string(5000, '[') + std::string(5000, ']') + "}";
  client->script(Method::kGet, "/redfish/v1/Chassis/System.Embedded.1", raw(200, deep));
  auto result = redfish::crawlInventory(client);
  REQUIRE(result);
  CHECK(result->chassis.size() == 1);
  bool warned = false;
  for (const auto& w : result->warnings) warned |= w.find("deeper") != std::string::npos;
  CHECK(warned);
}

TEST_CASE("a system member that 404s is skipped with a warning", "[ops][robustness]") {
  auto client = std::make_shared<MockupClient>(mockupDir("nvidia_viking"));
  client->script(Method::kGet, "/redfish/v1/Systems/DGX",
                 redfishError(404, "Base.1.8.ResourceMissingAtURI", "gone"));
  auto result = redfish::crawlInventory(client);
  REQUIRE(result);
  CHECK(result->systems.size() == 1);
  bool warned = false;
  for (const auto& w : result->warnings)
    warned |= w.find("/redfish/v1/Systems/DGX:") != std::string::npos;
  CHECK(warned);
}

TEST_CASE("the service root or Systems failing fails the crawl", "[ops][robustness]") {
  auto client = std::make_shared<MockupClient>(mockupDir("dell"));
  client->script(Method::kGet, "/redfish/v1/Systems",
                 redfishError(500, "Base.1.8.InternalError", "boom"));
  auto result = redfish::crawlInventory(client);
  REQUIRE_FALSE(result);
  CHECK(result.error().code == redfish::codes::kHttpError);
  CHECK(result.error().message.find("boom") != std::string::npos);
}

TEST_CASE("HGX baseboard 503 while the host is off is a warning", "[ops][robustness][quirks]") {
  auto client = std::make_shared<MockupClient>(mockupDir("nvidia_viking"));
  client->script(Method::kGet, "/redfish/v1/Systems/HGX_Baseboard_0",
                 redfishError(503, "Base.1.8.ServiceTemporarilyUnavailable", "host off"));
  auto result = redfish::crawlInventory(client);
  REQUIRE(result);
  REQUIRE(result->systems.size() == 1);
  CHECK(result->systems[0].id == "DGX");
  bool warned = false;
  for (const auto& w : result->warnings) {
    warned |= w.find("unavailable while the host is off") != std::string::npos;
  }
  CHECK(warned);
  // The same 503 from a vendor without the quirk fails.
  auto dell = std::make_shared<MockupClient>(mockupDir("dell"));
  dell->script(Method::kGet, "/redfish/v1/Systems/System.Embedded.1",
               redfishError(503, "Base.1.8.ServiceTemporarilyUnavailable", "busy"));
  CHECK_FALSE(redfish::crawlInventory(dell));
}

TEST_CASE("HPE duplicate lower-case members are crawled once", "[ops][robustness][quirks]") {
  auto client = std::make_shared<MockupClient>(mockupDir("hpe"));
  client->script(Method::kGet, "/redfish/v1/Systems",
                 jsonResponse(200, {{"@odata.id", "/redfish/v1/Systems"},
                                    {"Members",
                                     {{{"@odata.id", "/redfish/v1/Systems/1"}},
                                      {{"@odata.id", "/redfish/v1/systems/1/"}}}}}));
  auto result = redfish::crawlInventory(client);
  REQUIRE(result);
  CHECK(result->systems.size() == 1);
  for (const auto& s : client->sent()) CHECK(s.target != "/redfish/v1/systems/1/");
}

TEST_CASE("paging follows Members nextLink", "[ops][crawl]") {
  auto client = std::make_shared<MockupClient>(mockupDir("dell"));
  const std::string fw = "/redfish/v1/UpdateService/FirmwareInventory";
  client->script(Method::kGet, fw, [](const redfish::Request&) {
    return jsonResponse(
        200, {{"Members", {{{"@odata.id", "/redfish/v1/UpdateService/FirmwareInventory/A"}}}},
              {"Members@odata.nextLink", "/redfish/v1/UpdateService/FirmwareInventory?page=2"}});
  });
  client->script(Method::kGet, fw + "?page=2", [](const redfish::Request&) {
    return jsonResponse(
        200, {{"Members", {{{"@odata.id", "/redfish/v1/UpdateService/FirmwareInventory/B"}}}}});
  });
  for (const char* id : {"A", "B"}) {
    client->script(Method::kGet, fw + "/" + id, jsonResponse(200, {{"Id", id}, {"Version", "1"}}));
  }
  auto result = redfish::crawlInventory(client);
  REQUIRE(result);
  REQUIRE(result->firmware.size() == 2);
  CHECK(result->firmware[1].id == "B");
}

TEST_CASE("quirks table keyed by the service root vendor", "[ops][quirks]") {
  auto vendorOf = [](const std::string& dump) {
    MockupClient client(mockupDir(dump));
    auto identity = redfish::readIdentity(client);
    REQUIRE(identity);
    return identity->vendor;
  };
  CHECK(vendorOf("dell") == "dell");
  CHECK(vendorOf("hpe") == "hpe");
  CHECK(vendorOf("lenovo") == "lenovo");
  CHECK(vendorOf("supermicro") == "supermicro");
  CHECK(vendorOf("nvidia_viking") == "ami");
  CHECK(redfish::quirksFor("ami").patchIfMatchStar);
  CHECK(redfish::quirksFor("dell").redundantPowerConflictIsSuccess);
  CHECK(redfish::quirksFor("supermicro").bootOverrideSetsUefiMode);
  CHECK(redfish::quirksFor("hpe").caseInsensitiveDuplicates);
  CHECK_FALSE(redfish::quirksFor("generic").patchIfMatchStar);
  CHECK(redfish::compareVersions("2.72", "2.100") < 0);
}

TEST_CASE("identity of the Dell dump in a few requests", "[ops][identity]") {
  MockupClient dell(mockupDir("dell"));
  auto identity = redfish::readIdentity(dell);
  REQUIRE(identity);
  CHECK(identity->systemSerial == "CNIVC0014M0388");
  CHECK(identity->chassisSerial == "CNIVC0014M0388");
  CHECK(identity->model == "PowerEdge R750");
  CHECK(identity->bmcFirmware == "6.00.30.00");
  CHECK_FALSE(identity->bmcMac.empty());
  CHECK(dell.count() <= 8);
}

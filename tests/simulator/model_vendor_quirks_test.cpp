// HPE lower-case paths and intermittent 401s, $expand, snapshot.
#include <catch2/catch.hpp>

#include "simulator/support/model_support.hpp"

using namespace modeltest;

TEST_CASE("HPE serves lower-case duplicate paths") {
  Bmc bmc("hpe-dl385");
  auto upper = bmc.json("/redfish/v1/Systems/1");
  auto lowerCase = bmc.json("/redfish/v1/systems/1/");
  REQUIRE(upper.is_object());
  CHECK(upper["SerialNumber"] == lowerCase["SerialNumber"]);
  Bmc dell("dell-r750");
  CHECK(dell.get("/redfish/v1/systems/System.Embedded.1").status == 404);
}

TEST_CASE("HPE answers a small deterministic fraction of authenticated requests with 401") {
  Bmc bmc("hpe-dl385");
  int unauthorised = 0;
  for (int i = 0; i < 1000; ++i) {
    if (bmc.get("/redfish/v1/Systems/1").status == 401) ++unauthorised;
  }
  CHECK(unauthorised >= 5);  // 2% of 1000
  CHECK(unauthorised <= 50);
  CHECK(bmc.get("/redfish/v1", false).status == 200);  // the open root is never refused
}

TEST_CASE("Expand inlines collection members where the vendor supports it") {
  Bmc bmc("dell-r750");
  auto expanded = bmc.json("/redfish/v1/Systems?$expand=.($levels=1)");
  CHECK(expanded["Members"][0].contains("PowerState"));
  auto plain = bmc.json("/redfish/v1/Systems");
  CHECK_FALSE(plain["Members"][0].contains("PowerState"));
}

TEST_CASE("Snapshot reports the live state") {
  Bmc bmc("dgx-h100");
  auto before = bmc.model->snapshot();
  CHECK(before["powerState"] == "On");
  CHECK(before["profile"] == "dgx-h100");
  bmc.send("POST", bmc.behaviour().resetTarget, {{"ResetType", "ForceOff"}});
  CHECK(bmc.model->snapshot()["powerState"] == "Off");
  CHECK(bmc.model->snapshot().dump().find(kCredentials.password) == std::string::npos);
}

TEST_CASE("Malformed bodies are 400s not crashes") {
  Bmc bmc("dell-r750");
  sim::HttpRequest request;
  request.method = "POST";
  request.path = bmc.behaviour().resetTarget;
  request.headers = {{"authorization", basicAuth(kCredentials.username, kCredentials.password)}};
  request.body = "{not json";
  CHECK(bmc.model->handle(request).status == 400);
  request.method = "PATCH";
  request.path = bmc.behaviour().biosSettingsPath;
  request.body = "[1,2]";
  CHECK(bmc.model->handle(request).status == 400);
  request.body = R"({"Attributes": 5})";
  CHECK(bmc.model->handle(request).status == 400);
}

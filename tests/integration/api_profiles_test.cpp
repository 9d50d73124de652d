// The hardware profile API: BIOS settings, minimum firmware and GPU model round-trip; bad ones
// are refused naming their field.
#include <catch2/catch.hpp>

#include "support/service_fixture.hpp"

namespace {

using testing::ServiceFixture;

nlohmann::json profileBody() {
  return {{"model", "DGX H100"},
          {"channel", "stable"},
          {"expected_gpus", 8},
          {"bios_settings", {{"SriovEnable", "Enabled"}, {"NumaNodesPerSocket", 2}}},
          {"min_firmware",
           {{{"match", "BMC"}, {"version", "24.01.1"}, {"image_uri", "https://fw/bmc.bin"}}}},
          {"gpu_model", "H100 80GB HBM3"}};
}

}  // namespace

TEST_CASE("A hardware profile keeps BIOS settings firmware minimums and GPU model",
          "[integration][profiles]") {
  ServiceFixture svc;
  auto put = svc.sendJson("PUT", "/api/v1/hardware-profiles/dgx-h100", profileBody(), "operator");
  INFO(put.body);
  REQUIRE(put.status == 200);
  auto got = svc.get("/api/v1/hardware-profiles/dgx-h100", "viewer").json();
  CHECK(got["bios_settings"]["SriovEnable"] == "Enabled");
  CHECK(got["bios_settings"]["NumaNodesPerSocket"] == 2);
  CHECK(got["min_firmware"][0]["version"] == "24.01.1");
  CHECK(got["min_firmware"][0]["image_uri"] == "https://fw/bmc.bin");
  CHECK(got["gpu_model"] == "H100 80GB HBM3");
}

TEST_CASE("Bad profile BIOS settings and firmware entries name their field",
          "[integration][profiles]") {
  ServiceFixture svc;
  auto body = profileBody();
  body["min_firmware"][0].erase("version");
  auto missing = svc.sendJson("PUT", "/api/v1/hardware-profiles/dgx-h100", body, "operator");
  CHECK(missing.status == 400);
  CHECK(missing.json().value("field", "") == "min_firmware[0].version");

  body = profileBody();
  body["min_firmware"][0]["image_uri"] = "file:///etc/passwd";
  auto uri = svc.sendJson("PUT", "/api/v1/hardware-profiles/dgx-h100", body, "operator");
  CHECK(uri.status == 400);
  CHECK(uri.json().value("field", "") == "min_firmware[0].image_uri");

  body = profileBody();
  body["bios_settings"]["BootOrder"] = {{"nested", true}};
  auto bios = svc.sendJson("PUT", "/api/v1/hardware-profiles/dgx-h100", body, "operator");
  CHECK(bios.status == 400);
  CHECK(bios.json().value("field", "") == "bios_settings.BootOrder");
  CHECK(svc.get("/api/v1/hardware-profiles/dgx-h100", "viewer").status == 404);
}

// A firmware campaign's plan comes from the baseline revision and each node's last
// FirmwareInventory read: components not accepted go from -> the target package, compliant
// nodes are left out, a node never read is planned (its run reads it before flashing), and a
// baseline or revision that does not exist is a 422 naming it, with nothing stored.
#include <catch2/catch.hpp>

#include <pqxx/pqxx>

#include "integration/firmware_test_support.hpp"
#include "common/secret_box.hpp"
#include "inventory/node_firmware.hpp"

using nlohmann::json;
using testing::ServiceFixture;

namespace {

constexpr const char* kAt = "2026-12-01T10:00:00.000000Z";

long long count(ServiceFixture& svc, const std::string& table) {
  pqxx::connection c(svc.databaseUrl());
  pqxx::nontransaction w(c);
  return w.exec1("SELECT count(*) FROM " + table)[0].as<long long>();
}

long long makeNode(ServiceFixture& svc, const std::string& serial) {
  auto r = svc.sendJson("POST", "/api/v1/nodes",
                        {{"chassis_serial", serial},
                         {"hardware_model", "DGX H100"},
                         {"rack_id", svc.get("/api/v1/racks", "viewer").json()["items"][0]["id"]},
                         {"state", "ready"}},
                        "asset");
  REQUIRE(r.status == 201);
  return r.json()["id"];
}

std::vector<inventory::FirmwareObservation> members(const std::string& bmc) {
  return {{"/redfish/v1/UpdateService/FirmwareInventory/BMC_Firmware", "BMC_Firmware", "BMC", "",
           bmc, true},
          {"/redfish/v1/UpdateService/FirmwareInventory/GPU_SXM_1", "GPU_SXM_1", "GPU 1",
           "0x2330", "96.00.61", true}};
}

json campaign(const json& baseline) {
  return {{"name", "bmc-24-10"},
          {"kind", "firmware"},
          {"baseline", baseline},
          {"selector", {{"site", "sjc1"}}},
          {"canary", {{"count", 1}}},
          {"waves", json::array({"rest"})},
          {"caps", {{"global", 10}, {"per_rack", 2}}}};
}

struct Fleet {
  long long below, compliant, unread, above;
};

Fleet seed(ServiceFixture& svc) {
  testing::putProfile(svc, "dgx-h100", "DGX H100");
  REQUIRE(testing::registerPackage(svc, "dgx-bmc", "24.10.1", "bmc", "bmc") == 201);
  REQUIRE(testing::applyBaseline(svc, testing::baselineYaml()).status == 201);
  REQUIRE(svc.sendJson("POST", "/api/v1/sites", {{"name", "sjc1"}}, "asset").status == 201);
  REQUIRE(svc.sendJson("POST", "/api/v1/racks", {{"site", "sjc1"}, {"name", "R01"}}, "asset")
              .status == 201);
  Fleet f{makeNode(svc, "SN-BELOW"), makeNode(svc, "SN-OK"), makeNode(svc, "SN-UNREAD"),
          makeNode(svc, "SN-ABOVE")};
  REQUIRE(inventory::recordNodeFirmware(svc.db(), f.below, members("24.01.5"), kAt));
  REQUIRE(inventory::recordNodeFirmware(svc.db(), f.compliant, members("24.10.1"), kAt));
  REQUIRE(inventory::recordNodeFirmware(svc.db(), f.above, members("25.2.0"), kAt));
  return f;
}

const json* planned(const json& plan, long long node) {
  for (const auto& n : plan["nodes"]) {
    if (n["node_id"] == node) return &n;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("a firmware campaign plans the components each node's last read does not accept",
          "[integration][api][campaigns][firmware]") {
  ServiceFixture svc;
  const Fleet f = seed(svc);

  auto created = svc.sendJson("POST", "/api/v1/campaigns",
                              campaign({{"name", "dgx-h100-2026q4"}}), "operator");
  INFO(created.body);
  REQUIRE(created.status == 201);
  const json c = created.json();
  CHECK(c["baseline"]["revision"] == 1);  // the latest, filled in
  CHECK(c["node_count"] == 3);
  const json plan = c["plan"];
  CHECK(planned(plan, f.compliant) == nullptr);

  const json* below = planned(plan, f.below);
  REQUIRE(below != nullptr);
  CHECK((*below)["components"] ==
        json::array({{{"component", "bmc"},
                      {"from", "24.01.5"},
                      {"to", "24.10.1"},
                      {"package", "dgx-bmc"}}}));
  CHECK((*below)["estimated_seconds"] == 600 + 900);  // overhead + the package's estimate

  const json* unread = planned(plan, f.unread);
  REQUIRE(unread != nullptr);
  CHECK((*unread)["components"][0]["from"] == "unknown");
  const json* above = planned(plan, f.above);
  REQUIRE(above != nullptr);
  CHECK((*above)["components"][0]["from"] == "25.2.0");
  // The gpu component has no target: accepted versions are reported, never flashed.
  for (const auto& n : plan["nodes"]) CHECK(n["components"].size() == 1);
}

TEST_CASE("a firmware campaign for a missing baseline, revision or with nothing to do is a 422",
          "[integration][api][campaigns][firmware]") {
  ServiceFixture svc;
  const Fleet f = seed(svc);
  const long long before = count(svc, "campaigns");

  auto missing =
      svc.sendJson("POST", "/api/v1/campaigns", campaign({{"name", "no-such"}}), "operator");
  CHECK(missing.status == 422);
  CHECK(missing.json()["code"] == "unknown_baseline");
  CHECK(missing.json()["field"] == "baseline");

  auto revision = svc.sendJson("POST", "/api/v1/campaigns",
                               campaign({{"name", "dgx-h100-2026q4"}, {"revision", 7}}), "operator");
  CHECK(revision.status == 422);
  CHECK(revision.json()["code"] == "unknown_baseline_revision");

  json only_compliant = campaign({{"name", "dgx-h100-2026q4"}});
  only_compliant["selector"] = {{"nodes", {f.compliant}}};
  auto nothing = svc.sendJson("POST", "/api/v1/campaigns", only_compliant, "operator");
  INFO(nothing.body);
  CHECK(nothing.status == 422);
  CHECK(nothing.json()["code"] == "campaign_changes_nothing");
  CHECK(count(svc, "campaigns") == before);
  CHECK(count(svc, "campaign_nodes") == 0);
}

TEST_CASE("the plan preview names a component its package cannot be flashed over",
          "[integration][api][campaigns][firmware]") {
  ServiceFixture svc;
  testing::putProfile(svc, "dgx-h100", "DGX H100");
  const std::string bytes = "bmc";
  const std::string digest = common::sha256Hex(bytes);
  REQUIRE(svc.send("PUT", "/api/v1/artifacts/" + digest, bytes, "operator",
                   "application/octet-stream")
              .status == 201);
  json body = testing::packageBody("dgx-bmc", "24.10.1", "bmc", digest);
  body["min_from_version"] = "24.05";
  REQUIRE(svc.sendJson("POST", "/api/v1/firmware/packages", body, "operator").status == 201);
  REQUIRE(testing::applyBaseline(svc, testing::baselineYaml()).status == 201);
  REQUIRE(svc.sendJson("POST", "/api/v1/sites", {{"name", "sjc1"}}, "asset").status == 201);
  REQUIRE(svc.sendJson("POST", "/api/v1/racks", {{"site", "sjc1"}, {"name", "R01"}}, "asset")
              .status == 201);
  const long long old_bmc = makeNode(svc, "SN-OLD"), newer_bmc = makeNode(svc, "SN-NEWER");
  REQUIRE(inventory::recordNodeFirmware(svc.db(), old_bmc, members("24.01.5"), kAt));
  REQUIRE(inventory::recordNodeFirmware(svc.db(), newer_bmc, members("24.09.1"), kAt));

  auto created = svc.sendJson("POST", "/api/v1/campaigns",
                              campaign({{"name", "dgx-h100-2026q4"}}), "operator");
  INFO(created.body);
  REQUIRE(created.status == 201);
  const json plan = created.json()["plan"];
  const json* old_plan = planned(plan, old_bmc);
  const json* newer_plan = planned(plan, newer_bmc);
  REQUIRE(old_plan != nullptr);
  REQUIRE(newer_plan != nullptr);
  const std::string blocked = (*old_plan)["components"][0].value("blocked", "");
  CHECK(blocked.rfind("below_min_from_version: 24.01.5 is below 24.05", 0) == 0);
  CHECK_FALSE((*newer_plan)["components"][0].contains("blocked"));
}

// Firmware observations and compliance: recordNodeFirmware keeps the current set and its history,
// unreachable BMCs are reported as such, and the compliance report (JSON and CSV) shows per node
// and component the status, mixed label groups and roll-ups, from seeded observations.
#include <catch2/catch.hpp>

#include "integration/firmware_test_support.hpp"
#include "inventory/node_firmware.hpp"
#include "provisioner/http/csv.hpp"

using nlohmann::json;
using testing::ServiceFixture;

namespace {

constexpr const char* kAt = "2026-12-01T10:00:00.000000Z";

long long makeRack(ServiceFixture& svc, const std::string& name) {
  if (svc.get("/api/v1/sites", "viewer").json()["items"].empty()) {
    REQUIRE(svc.sendJson("POST", "/api/v1/sites", {{"name", "sjc1"}}, "asset").status == 201);
  }
  auto rack = svc.sendJson("POST", "/api/v1/racks", {{"site", "sjc1"}, {"name", name}}, "asset");
  REQUIRE(rack.status == 201);
  return rack.json()["id"];
}

long long makeNode(ServiceFixture& svc, long long rack, const std::string& serial,
                   const json& labels) {
  auto r = svc.sendJson("POST", "/api/v1/nodes",
                        {{"chassis_serial", serial}, {"hardware_model", "DGX H100"},
                         {"rack_id", rack}, {"state", "ready"}},
                        "asset");
  REQUIRE(r.status == 201);
  const long long id = r.json()["id"];
  REQUIRE(svc.sendJson("PATCH", "/api/v1/nodes/" + std::to_string(id) + "/labels",
                       {{"labels", labels}}, "operator")
              .status == 200);
  return id;
}

std::vector<inventory::FirmwareObservation> members(const std::string& bmc,
                                                    const std::string& gpu) {
  return {{"/redfish/v1/UpdateService/FirmwareInventory/BMC_Firmware", "BMC_Firmware", "BMC",
           "", bmc, true},
          {"/redfish/v1/UpdateService/FirmwareInventory/GPU_SXM_1", "GPU_SXM_1", "GPU 1",
           "0x2330", gpu, true}};
}

const json* componentOf(const json& report, long long node, const std::string& component) {
  for (const auto& n : report["nodes"]) {
    if (n["node_id"] != node) continue;
    for (const auto& c : n["components"]) {
      if (c["component"] == component) return &c;
    }
  }
  return nullptr;
}

}  // namespace

TEST_CASE("Recording firmware replaces the current set and appends history for changes only",
          "[integration][inventory][firmware]") {
  ServiceFixture svc;
  const long long rack = makeRack(svc, "R01");
  const long long id = makeNode(svc, rack, "SN-F1", json::object());
  auto first = inventory::recordNodeFirmware(svc.db(), id, members("24.09.17", "96.00.61"), kAt);
  REQUIRE(first);
  CHECK(first->changed == 2);
  auto same = inventory::recordNodeFirmware(svc.db(), id, members("24.09.17", "96.00.61"),
                                            "2026-12-01T11:00:00.000000Z");
  REQUIRE(same);
  CHECK(same->changed == 0);
  auto bmc_only = members("24.10.1", "96.00.61");
  bmc_only.pop_back();
  auto updated = inventory::recordNodeFirmware(svc.db(), id, bmc_only,
                                               "2026-12-01T12:00:00.000000Z");
  REQUIRE(updated);
  CHECK(updated->changed == 1);
  CHECK(updated->removed == 1);

  auto shown = svc.get("/api/v1/nodes/" + std::to_string(id) + "/firmware", "viewer").json();
  REQUIRE(shown["members"].size() == 1);
  CHECK(shown["members"][0]["version"] == "24.10.1");
  CHECK(shown["observed_at"] == "2026-12-01T12:00:00.000000Z");
  CHECK(shown["reachable"] == true);
  REQUIRE(shown["history"].size() == 3);
  CHECK(shown["history"][0]["version"] == "24.10.1");
  CHECK(shown["history"][0]["previous_version"] == "24.09.17");
  CHECK(shown["history"][2]["previous_version"].is_null());

  REQUIRE(inventory::markNodeFirmwareUnreachable(svc.db(), id, "2026-12-01T13:00:00.000000Z",
                                                 "connection refused"));
  auto away = inventory::getNodeFirmware(svc.db(), id);
  REQUIRE(away);
  CHECK_FALSE(away->state.reachable);
  CHECK(away->state.reason == "connection refused");
  CHECK(*away->state.observed_at == "2026-12-01T12:00:00.000000Z");
  CHECK(away->members.size() == 1);

  std::vector<inventory::FirmwareObservation> twice = members("1", "2");
  twice[1].path = twice[0].path;
  auto bad = inventory::recordNodeFirmware(svc.db(), id, twice, kAt);
  REQUIRE_FALSE(bad);
  CHECK(bad.error().field == "members[1].path");
  CHECK(inventory::recordNodeFirmware(svc.db(), 999999, members("1", "2"), kAt).error().code ==
        "node_not_found");
}

TEST_CASE("Compliance reports status per node and component, mixed groups and roll-ups",
          "[integration][api][firmware]") {
  ServiceFixture svc;
  testing::putProfile(svc, "dgx-h100", "DGX H100");
  REQUIRE(testing::registerPackage(svc, "dgx-bmc", "24.10.1", "bmc", "bmc") == 201);
  REQUIRE(testing::applyBaseline(svc, testing::baselineYaml()).status == 201);
  testing::putProfile(svc, "dgx-h100", "DGX H100", "dgx-h100-2026q4");
  const long long r1 = makeRack(svc, "R01");
  const long long r2 = makeRack(svc, "R02");
  const long long a = makeNode(svc, r1, "SN-A", {{"nvlink_domain", "nvl1"}});
  const long long b = makeNode(svc, r1, "SN-B", {{"nvlink_domain", "nvl1"}});
  const long long c = makeNode(svc, r2, "SN-C", {{"partition", "p2"}});
  const long long d = makeNode(svc, r2, "SN-D", {{"partition", "p2"}});
  const long long e = makeNode(svc, r2, "SN-E", json::object());
  REQUIRE(inventory::recordNodeFirmware(svc.db(), a, members("24.10.1", "96.00.61"), kAt));
  REQUIRE(inventory::recordNodeFirmware(svc.db(), b, members("24.09.17", "96.00.61"), kAt));
  REQUIRE(inventory::recordNodeFirmware(svc.db(), c, members("24.09.1", "96.00.61"), kAt));
  REQUIRE(inventory::recordNodeFirmware(svc.db(), d, members("25.1.0", "96.00.61"), kAt));
  REQUIRE(inventory::markNodeFirmwareUnreachable(svc.db(), d, kAt, "timeout"));
  // e was never observed.

  auto got = svc.get("/api/v1/firmware/compliance", "viewer");
  INFO(got.body);
  REQUIRE(got.status == 200);
  const auto report = got.json();
  REQUIRE(report["nodes"].size() == 5);
  CHECK((*componentOf(report, a, "bmc"))["status"] == "compliant");
  CHECK((*componentOf(report, b, "bmc"))["status"] == "compliant");
  CHECK((*componentOf(report, c, "bmc"))["status"] == "below");
  CHECK((*componentOf(report, c, "bmc"))["installed"] == json::array({"24.09.1"}));
  CHECK((*componentOf(report, c, "bmc"))["target"]["version"] == "24.10.1");
  CHECK((*componentOf(report, d, "bmc"))["status"] == "unreachable");
  CHECK((*componentOf(report, e, "gpu"))["status"] == "unknown");
  CHECK((*componentOf(report, a, "gpu"))["status"] == "compliant");
  CHECK((*componentOf(report, a, "bmc"))["mixed"] == true);
  CHECK((*componentOf(report, a, "gpu"))["mixed"] == false);
  REQUIRE(report["mixed"].size() == 2);  // nvl1 bmc (a, b) and p2 bmc (c, d's last known)
  CHECK(report["mixed"][0]["label"] == "nvlink_domain");
  CHECK(report["mixed"][0]["versions"]["24.09.17"] == json::array({b}));
  CHECK(report["rollups"]["total"]["statuses"]["compliant"] == 2);
  CHECK(report["rollups"]["total"]["statuses"]["below"] == 1);
  CHECK(report["rollups"]["total"]["statuses"]["unreachable"] == 1);
  CHECK(report["rollups"]["total"]["statuses"]["unknown"] == 1);
  REQUIRE(report["rollups"]["rack"].size() == 2);
  CHECK(report["rollups"]["rack"][0]["rack"] == "R01");
  CHECK(report["rollups"]["rack"][0]["statuses"]["compliant"] == 2);
  CHECK(report["rollups"]["model"][0]["nodes"] == 5);

  auto only_r1 = svc.get("/api/v1/firmware/compliance?rack=R01&labels=pdu", "viewer").json();
  CHECK(only_r1["nodes"].size() == 2);
  CHECK(only_r1["mixed"].empty());

  auto csv = svc.get("/api/v1/firmware/compliance?format=csv", "viewer");
  REQUIRE(csv.status == 200);
  CHECK(csv.content_type.find("text/csv") == 0);
  auto table = provisioner::http::parseCsv(csv.body);
  REQUIRE(table);
  CHECK(table->rows.size() == 10);  // 5 nodes x 2 components
  const auto status = *table->columnIndex("status");
  const auto serial = *table->columnIndex("chassis_serial");
  const auto component = *table->columnIndex("component");
  bool found = false;
  for (const auto& row : table->rows) {
    if (row.fields[serial] == "SN-C" && row.fields[component] == "bmc") {
      found = row.fields[status] == "below";
    }
  }
  CHECK(found);

  CHECK(svc.get("/api/v1/firmware/compliance?baseline=nope", "viewer").json()["field"] ==
        "baseline");
  CHECK(svc.get("/api/v1/firmware/compliance?format=xml", "viewer").status == 400);
}

TEST_CASE("Nodes without a baseline are not covered; ?baseline= applies one to all",
          "[integration][api][firmware]") {
  ServiceFixture svc;
  testing::putProfile(svc, "dgx-h100", "DGX H100");
  REQUIRE(testing::registerPackage(svc, "dgx-bmc", "24.10.1", "bmc", "bmc") == 201);
  REQUIRE(testing::applyBaseline(svc, testing::baselineYaml()).status == 201);
  const long long rack = makeRack(svc, "R01");
  const long long a = makeNode(svc, rack, "SN-A", json::object());
  REQUIRE(inventory::recordNodeFirmware(svc.db(), a, members("24.10.1", "96.00.61"), kAt));
  auto plain = svc.get("/api/v1/firmware/compliance", "viewer").json();
  CHECK(plain["nodes"].empty());
  REQUIRE(plain["not_covered"].size() == 1);
  CHECK(plain["not_covered"][0]["reason"] == "no baseline");
  auto named = svc.get("/api/v1/firmware/compliance?baseline=dgx-h100-2026q4", "viewer").json();
  REQUIRE(named["nodes"].size() == 1);
  CHECK(named["nodes"][0]["status"] == "compliant");
  CHECK(named["nodes"][0]["revision"] == 1);
}

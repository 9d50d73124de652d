// Asset-team endpoints: sites, racks, nodes, component history, asset lookup, reconciliation.
#include <catch2/catch.hpp>

#include "provisioner/http/csv.hpp"
#include "support/service_fixture.hpp"

using nlohmann::json;
using testing::ServiceFixture;

namespace {

json gpu(const std::string& slot, const std::string& serial, const std::string& firmware) {
  return {{"kind", "gpu"},
          {"slot", slot},
          {"manufacturer", "NVIDIA"},
          {"model", "H100 80GB HBM3"},
          {"serial", serial},
          {"firmware_version", firmware}};
}

// A site "sjc1" with rack "R01"; returns the rack id.
long long makeRack(ServiceFixture& svc) {
  REQUIRE(svc.sendJson("POST", "/api/v1/sites", {{"name", "sjc1"}}, "asset").status == 201);
  auto rack =
      svc.sendJson("POST", "/api/v1/racks",
                   {{"site", "sjc1"}, {"room", "hall-1"}, {"row", "A"}, {"name", "R01"}}, "asset");
  REQUIRE(rack.status == 201);
  return rack.json()["id"];
}

long long makeNode(ServiceFixture& svc, long long rack, const std::string& serial, int u,
                   const std::string& mac) {
  auto r = svc.sendJson("POST", "/api/v1/nodes",
                        {{"chassis_serial", serial},
                         {"hardware_model", "DGX H100"},
                         {"bmc_address", "10.0.0." + std::to_string(u)},
                         {"bmc_mac", mac},
                         {"rack_id", rack},
                         {"u_position", u}},
                        "operator");
  REQUIRE(r.status == 201);
  return r.json()["id"];
}

std::string nodePath(long long id) {
  return "/api/v1/nodes/" + std::to_string(id);
}

}  // namespace

TEST_CASE("sites and racks are registered; duplicates and unknown sites refused",
          "[integration][api][inventory]") {
  ServiceFixture svc;
  long long rack = makeRack(svc);
  auto dup = svc.sendJson("POST", "/api/v1/racks", {{"site", "sjc1"}, {"name", "R01"}});
  CHECK(dup.status == 409);
  CHECK(dup.json()["code"] == "duplicate_rack");
  auto unknown = svc.sendJson("POST", "/api/v1/racks", {{"site", "nowhere"}, {"name", "R02"}});
  CHECK(unknown.status == 404);
  CHECK(unknown.json()["code"] == "site_not_found");
  auto fetched = svc.get("/api/v1/racks/" + std::to_string(rack), "viewer").json();
  CHECK(fetched["room"] == "hall-1");
  CHECK(fetched["u_height"] == 42);
  CHECK(svc.get("/api/v1/racks/abc").json()["field"] == "id");
  CHECK(svc.get("/api/v1/racks/424242").status == 404);
}

TEST_CASE("nodes are registered, listed by filters and exported as CSV",
          "[integration][api][inventory]") {
  ServiceFixture svc;
  long long rack = makeRack(svc);
  long long a = makeNode(svc, rack, "CH-1", 2, "aa:bb:cc:00:00:01");
  makeNode(svc, rack, "CH-2", 4, "aa:bb:cc:00:00:02");
  REQUIRE(
      svc.sendJson("POST", nodePath(a) + "/state", {{"state", "ready"}, {"reason", "burn-in ok"}})
          .status == 200);
  REQUIRE(svc.sendJson("PUT", nodePath(a) + "/components",
                       {{"components", {gpu("GPU_SXM_1", "G-1", "96.00.74")}}})
              .status == 200);

  auto dup = svc.sendJson("POST", "/api/v1/nodes", {{"chassis_serial", "CH-1"}});
  CHECK(dup.status == 409);
  CHECK(dup.json()["code"] == "duplicate_serial");
  auto bad_u = svc.sendJson("POST", "/api/v1/nodes",
                            {{"chassis_serial", "CH-9"}, {"rack_id", rack}, {"u_position", 99}});
  CHECK(bad_u.status == 400);
  CHECK(bad_u.json()["field"] == "u_position");
  auto bad_state = svc.get("/api/v1/nodes?state=flying");
  CHECK(bad_state.status == 400);
  CHECK(bad_state.json()["field"] == "state");

  auto ready = svc.get("/api/v1/nodes?rack=R01&state=ready", "viewer").json()["items"];
  REQUIRE(ready.size() == 1);
  CHECK(ready[0]["chassis_serial"] == "CH-1");
  CHECK(ready[0]["gpu_count"] == 1);
  CHECK(svc.get("/api/v1/nodes?firmware=96.00.74").json()["items"].size() == 1);
  CHECK(svc.get("/api/v1/nodes?model=DGX%20H100").json()["items"].size() == 2);
  CHECK(svc.get("/api/v1/racks/" + std::to_string(rack) + "/nodes").json()["items"].size() == 2);

  auto csv = svc.get("/api/v1/nodes?format=csv&rack=R01");
  REQUIRE(csv.status == 200);
  CHECK(csv.content_type.find("text/csv") == 0);
  auto table = provisioner::http::parseCsv(csv.body);
  REQUIRE(table.ok());
  REQUIRE(table->rows.size() == 2);
  auto serial_col = table->columnIndex("chassis_serial");
  auto state_col = table->columnIndex("state");
  REQUIRE(serial_col);
  REQUIRE(state_col);
  CHECK(table->rows[0].fields[*serial_col] == "CH-1");
  CHECK(table->rows[0].fields[*state_col] == "ready");
}

TEST_CASE("component history survives moves, firmware updates and RMA",
          "[integration][api][inventory]") {
  ServiceFixture svc;
  long long rack = makeRack(svc);
  long long a = makeNode(svc, rack, "CH-A", 2, "aa:bb:cc:00:00:0a");
  long long b = makeNode(svc, rack, "CH-B", 4, "aa:bb:cc:00:00:0b");

  auto first = svc.sendJson(
      "PUT", nodePath(a) + "/components",
      {{"components", {gpu("GPU_SXM_1", "G-1", "96.00.61"), gpu("GPU_SXM_2", "G-2", "96.00.61")}}});
  REQUIRE(first.status == 200);
  CHECK(first.json()["installed"] == 2);
  // Firmware update on A.
  auto update = svc.sendJson(
      "PUT", nodePath(a) + "/components",
      {{"components", {gpu("GPU_SXM_1", "G-1", "96.00.74"), gpu("GPU_SXM_2", "G-2", "96.00.74")}}});
  CHECK(update.json()["firmware_changed"] == 2);
  // G-2 turns up in B while A still lists it: a move.
  auto moved = svc.sendJson("PUT", nodePath(b) + "/components",
                            {{"components", {gpu("GPU_SXM_5", "G-2", "96.00.74")}}});
  CHECK(moved.json()["installed"] == 1);
  CHECK(moved.json()["moved_in"] == 1);
  // G-1 is replaced under RMA by G-9.
  auto rma = svc.sendJson("PUT", nodePath(a) + "/components",
                          {{"components", {gpu("GPU_SXM_1", "G-9", "96.00.74")}},
                           {"reason", "rma"},
                           {"rma_ticket", "RMA-1"}});
  CHECK(rma.json()["removed"] == 1);
  CHECK(rma.json()["installed"] == 1);

  auto g2 = svc.get("/api/v1/assets/G-2", "viewer");
  REQUIRE(g2.status == 200);
  auto asset = g2.json();
  CHECK(asset["asset_type"] == "component");
  CHECK(asset["location"]["node_serial"] == "CH-B");
  CHECK(asset["location"]["slot"] == "GPU_SXM_5");
  CHECK(asset["location"]["rack"] == "R01");
  CHECK(asset["location"]["site"] == "sjc1");
  CHECK(asset["location"]["u_position"] == 4);
  CHECK(asset["firmware_version"] == "96.00.74");
  std::vector<std::string> events;
  for (const auto& h : asset["history"]) events.push_back(h["event"]);
  CHECK(std::count(events.begin(), events.end(), "installed") == 2);
  CHECK(std::count(events.begin(), events.end(), "removed") == 1);
  CHECK(std::count(events.begin(), events.end(), "firmware_changed") == 1);

  auto g1 = svc.get("/api/v1/assets/G-1").json();
  CHECK(g1["state"] == "removed");
  bool rma_seen = false;
  for (const auto& h : g1["history"]) {
    if (h["event"] == "removed") rma_seen = h["reason"].get<std::string>().find("rma") == 0;
  }
  CHECK(rma_seen);

  auto node = svc.get(nodePath(a)).json();
  REQUIRE(node["components"].size() == 1);
  CHECK(node["components"][0]["serial"] == "G-9");
  CHECK(node["timeline"].size() >= 4);

  auto chassis = svc.get("/api/v1/assets/CH-A").json();
  CHECK(chassis["asset_type"] == "node");
  CHECK(chassis["components"].size() == 1);
  CHECK(svc.get("/api/v1/assets/NOPE").json()["code"] == "asset_not_found");

  auto bad_kind = svc.sendJson("PUT", nodePath(a) + "/components",
                               {{"components", {{{"kind", "toaster"}, {"serial", "T-1"}}}}});
  CHECK(bad_kind.status == 400);
  CHECK(bad_kind.json()["field"] == "components[0].kind");
  CHECK(svc.sendJson("PUT", "/api/v1/nodes/9999/components", {{"components", json::array()}})
            .json()["code"] == "node_not_found");
}

TEST_CASE("reconciliation shows received, mismatched, missing and unexpected units",
          "[integration][api][inventory]") {
  ServiceFixture svc;
  json po = {{"po_number", "PO-R"}, {"vendor", "NVIDIA"}, {"assets", json::array()}};
  for (int i = 1; i <= 4; ++i) {
    po["assets"].push_back({{"chassis_serial", "CH-" + std::to_string(i)},
                            {"model", "DGX H100"},
                            {"bmc_mac", "aa:bb:cc:00:00:0" + std::to_string(i)},
                            {"gpu_count", 1},
                            {"rack", "R01"},
                            {"u_position", 2 * i}});
  }
  REQUIRE(svc.sendJson("POST", "/api/v1/purchase-orders", po, "procurement").status == 201);
  long long rack = makeRack(svc);
  long long n1 = makeNode(svc, rack, "CH-1", 2, "aa:bb:cc:00:00:01");
  long long n2 = makeNode(svc, rack, "CH-2", 4, "aa:bb:cc:00:00:02");
  makeNode(svc, rack, "CH-X", 8, "aa:bb:cc:00:00:99");  // CH-4 swapped for another box
  svc.sendJson("PUT", nodePath(n1) + "/components", {{"components", {gpu("G", "G-1", "1")}}});
  svc.sendJson("PUT", nodePath(n2) + "/components", json{{"components", json::array()}});

  auto r = svc.get("/api/v1/purchase-orders/PO-R/reconciliation", "viewer");
  REQUIRE(r.status == 200);
  auto rec = r.json();
  CHECK(rec["counts"]["expected"] == 4);
  CHECK(rec["counts"]["received"] == 1);
  CHECK(rec["counts"]["mismatched"] == 1);
  CHECK(rec["counts"]["missing"] == 2);
  CHECK(rec["counts"]["unexpected"] == 1);
  CHECK(rec["received"][0]["chassis_serial"] == "CH-1");
  CHECK(rec["mismatched"][0]["chassis_serial"] == "CH-2");
  CHECK(rec["mismatched"][0]["mismatches"][0]["field"] == "gpu_count");
  CHECK(rec["mismatched"][0]["mismatches"][0]["expected"] == "1");
  CHECK(rec["mismatched"][0]["mismatches"][0]["actual"] == "0");
  CHECK(rec["unexpected"][0]["chassis_serial"] == "CH-X");
  CHECK(svc.get("/api/v1/purchase-orders/NOPE/reconciliation").status == 404);
}

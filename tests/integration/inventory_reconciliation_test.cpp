#include <catch2/catch.hpp>

#include "integration/inventory_test_support.hpp"
#include "inventory/nodes.hpp"
#include "inventory/purchase_orders.hpp"

using namespace inventory;
using inventory_test::gpu;
using inventory_test::makeNode;
using inventory_test::makeRack;
using inventory_test::testBox;

namespace {

ExpectedAssetSpec unit(const std::string& serial, const std::string& mac, int u) {
  ExpectedAssetSpec s;
  s.chassis_serial = serial;
  s.model = "DGX H100";
  s.bmc_mac = mac;
  s.gpu_count = 8;
  s.rack = "R01";
  s.u_position = u;
  return s;
}

void installGpus(Database& db, Id node_id, const std::string& prefix, int n) {
  ComponentReport report;
  for (int i = 0; i < n; ++i) {
    report.components.push_back(
        gpu(prefix + "-GPU" + std::to_string(i), "GPU_SXM_" + std::to_string(i)));
  }
  REQUIRE_OK(reportComponents(db, node_id, report));
}

}  // namespace

TEST_CASE("reconciliation: received, mismatched, missing and unexpected units",
          "[integration][inventory][reconciliation]") {
  auto inv = inventory_test::freshInventory();
  auto& db = *inv.db;
  Id r1 = makeRack(db, "R01");
  Id r2 = makeRack(db, "R02");
  PurchaseOrderSpec spec;
  spec.po_number = "PO-1";
  spec.vendor = "NVIDIA";
  spec.assets = {unit("SN1", "aa:00:00:00:00:01", 1), unit("SN2", "", 3), unit("SN3", "", 5),
                 unit("SN4", "aa:00:00:00:00:04", 7), unit("SN5", "", 9)};
  REQUIRE_OK(createPurchaseOrder(db, testBox(), spec));

  auto n1 = makeNode(db, "SN1", "aa:00:00:00:00:01", r1, 1);
  installGpus(db, n1.id, "SN1", 8);
  auto n2 = makeNode(db, "SN2", "", r1, 3);
  installGpus(db, n2.id, "SN2", 7);
  auto n3 = makeNode(db, "SN3", "", r1, 5, "HGX B200");
  installGpus(db, n3.id, "SN3", 8);
  auto n4 = makeNode(db, "SN4-REAL", "aa:00:00:00:00:04", r1, 7);
  installGpus(db, n4.id, "SN4", 8);
  auto stray = makeNode(db, "SN-X", "", r1, 20);
  makeNode(db, "SN-Y", "", r2, 1);  // another rack: not this PO's business

  auto r = reconcile(db, "PO-1");
  REQUIRE_OK(r);
  CHECK(r->po_number == "PO-1");
  CHECK(r->expected == 5);

  REQUIRE(r->received.size() == 1);
  CHECK(r->received[0].chassis_serial == "SN1");
  CHECK(r->received[0].node_id == n1.id);
  CHECK(r->received[0].node_serial == "SN1");
  CHECK(r->received[0].mismatches.empty());

  REQUIRE(r->mismatched.size() == 3);
  const auto& gpu_short = r->mismatched[0];
  CHECK(gpu_short.chassis_serial == "SN2");
  REQUIRE(gpu_short.mismatches.size() == 1);
  CHECK(gpu_short.mismatches[0].field == "gpu_count");
  CHECK(gpu_short.mismatches[0].expected == "8");
  CHECK(gpu_short.mismatches[0].actual == "7");

  const auto& wrong_model = r->mismatched[1];
  CHECK(wrong_model.chassis_serial == "SN3");
  REQUIRE(wrong_model.mismatches.size() == 1);
  CHECK(wrong_model.mismatches[0].field == "model");
  CHECK(wrong_model.mismatches[0].expected == "DGX H100");
  CHECK(wrong_model.mismatches[0].actual == "HGX B200");

  const auto& by_mac = r->mismatched[2];
  CHECK(by_mac.chassis_serial == "SN4");
  CHECK(by_mac.node_id == n4.id);
  CHECK(by_mac.node_serial == "SN4-REAL");
  REQUIRE(by_mac.mismatches.size() == 1);
  CHECK(by_mac.mismatches[0].field == "chassis_serial");
  CHECK(by_mac.mismatches[0].expected == "SN4");
  CHECK(by_mac.mismatches[0].actual == "SN4-REAL");

  REQUIRE(r->missing.size() == 1);
  CHECK(r->missing[0].chassis_serial == "SN5");
  CHECK_FALSE(r->missing[0].node_id.has_value());

  REQUIRE(r->unexpected.size() == 1);
  CHECK(r->unexpected[0].id == stray.id);
  CHECK(r->unexpected[0].chassis_serial == "SN-X");

  CHECK(reconcile(db, "PO-404").error().code == "po_not_found");
}

TEST_CASE("reconciliation: rack, U and MAC differences are reported",
          "[integration][inventory][reconciliation]") {
  auto inv = inventory_test::freshInventory();
  auto& db = *inv.db;
  Id r1 = makeRack(db, "R01");
  Id r2 = makeRack(db, "R02");
  PurchaseOrderSpec spec;
  spec.po_number = "PO-2";
  spec.vendor = "NVIDIA";
  auto u = unit("SN1", "aa:00:00:00:00:01", 1);
  u.gpu_count.reset();
  spec.assets = {u};
  REQUIRE_OK(createPurchaseOrder(db, testBox(), spec));
  makeNode(db, "SN1", "aa:00:00:00:00:02", r2, 4);
  (void)r1;

  auto r = reconcile(db, "PO-2");
  REQUIRE_OK(r);
  REQUIRE(r->mismatched.size() == 1);
  const auto& m = r->mismatched[0].mismatches;
  REQUIRE(m.size() == 3);
  CHECK(m[0].field == "rack");
  CHECK(m[0].expected == "R01");
  CHECK(m[0].actual == "R02");
  CHECK(m[1].field == "u_position");
  CHECK(m[1].expected == "1");
  CHECK(m[1].actual == "4");
  CHECK(m[2].field == "bmc_mac");
  CHECK(m[2].expected == "aa:00:00:00:00:01");
  CHECK(m[2].actual == "aa:00:00:00:00:02");
  CHECK(r->unexpected.empty());
}

TEST_CASE("reconciliation: a node never inspected has an unknown GPU count, not 0",
          "[integration][inventory][reconciliation]") {
  auto inv = inventory_test::freshInventory();
  auto& db = *inv.db;
  Id r1 = makeRack(db, "R01");
  PurchaseOrderSpec spec;
  spec.po_number = "PO-3";
  spec.vendor = "NVIDIA";
  spec.assets = {unit("SN1", "", 1), unit("SN2", "", 3)};
  REQUIRE_OK(createPurchaseOrder(db, testBox(), spec));
  // SN1: quarantined before inspection (no component was ever reported).
  auto never = makeNode(db, "SN1", "", r1, 1);
  REQUIRE_OK(setNodeState(db, never.id, "quarantined", "test", "bmc_unreachable"));
  // SN2: inspected, and every GPU is missing: that is a real 0.
  auto empty = makeNode(db, "SN2", "", r1, 3);
  ObservedComponent cpu;
  cpu.kind = "cpu";
  cpu.slot = "CPU0";
  cpu.serial = "SN2-CPU0";
  ComponentReport report;
  report.components.push_back(cpu);
  REQUIRE_OK(reportComponents(db, empty.id, report));

  auto r = reconcile(db, "PO-3");
  REQUIRE_OK(r);
  REQUIRE(r->received.size() == 1);
  CHECK(r->received[0].chassis_serial == "SN1");
  CHECK(r->received[0].mismatches.empty());
  CHECK(r->received[0].unchecked == std::vector<std::string>{"gpu_count"});
  REQUIRE(r->mismatched.size() == 1);
  CHECK(r->mismatched[0].chassis_serial == "SN2");
  CHECK(r->mismatched[0].unchecked.empty());
  REQUIRE(r->mismatched[0].mismatches.size() == 1);
  CHECK(r->mismatched[0].mismatches[0].field == "gpu_count");
  CHECK(r->mismatched[0].mismatches[0].expected == "8");
  CHECK(r->mismatched[0].mismatches[0].actual == "0");
}

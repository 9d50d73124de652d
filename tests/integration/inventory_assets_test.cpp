#include <catch2/catch.hpp>

#include "integration/inventory_test_support.hpp"
#include "inventory/assets.hpp"
#include "inventory/nodes.hpp"
#include "inventory/purchase_orders.hpp"

using namespace inventory;
using inventory_test::gpu;
using inventory_test::makeNode;
using inventory_test::makeRack;

TEST_CASE("asset lookup: a node, a component and a unit still on order",
          "[integration][inventory][assets]") {
  auto inv = inventory_test::freshInventory();
  auto& db = *inv.db;
  Id rack = makeRack(db, "R07");
  PurchaseOrderSpec spec;
  spec.po_number = "PO-77";
  spec.vendor = "NVIDIA";
  ExpectedAssetSpec arrived;
  arrived.chassis_serial = "CHASSIS-1";
  arrived.model = "DGX H100";
  ExpectedAssetSpec pending;
  pending.chassis_serial = "CHASSIS-2";
  pending.model = "DGX H100";
  pending.rack = "R07";
  pending.u_position = 11;
  spec.assets = {arrived, pending};
  REQUIRE_OK(createPurchaseOrder(db, inventory_test::testBox(), spec));

  auto node = makeNode(db, "CHASSIS-1", "", rack, 5);
  ComponentReport report;
  report.components = {gpu("GPU-A", "GPU_SXM_1", "1.0")};
  REQUIRE_OK(reportComponents(db, node.id, report));
  REQUIRE_OK(setNodeState(db, node.id, "ready", "bob", "burn-in passed"));

  SECTION("node") {
    auto a = lookupAsset(db, "CHASSIS-1");
    REQUIRE_OK(a);
    CHECK(a->serial == "CHASSIS-1");
    CHECK(a->asset_type == "node");
    CHECK(a->kind == "node");
    CHECK(a->model == "DGX H100");
    CHECK(a->state == "ready");
    CHECK(a->po_number == "PO-77");
    CHECK(a->location.site == "dc1");
    CHECK(a->location.room == "hall-a");
    CHECK(a->location.row == "row-1");
    CHECK(a->location.rack == "R07");
    CHECK(a->location.u_position == 5);
    CHECK(a->location.node_id == node.id);
    CHECK(a->location.node_serial == "CHASSIS-1");
    REQUIRE(a->components.size() == 1);
    CHECK(a->components[0].serial == "GPU-A");
    REQUIRE(a->history.size() == 3);
    CHECK(a->history[0].event == "ordered");
    CHECK(a->history[0].reason == "PO-77");
    CHECK(a->history[1].event == "registered");
    CHECK(a->history[1].node_id == node.id);
    CHECK(a->history[2].event == "state_changed");
    CHECK(a->history[2].reason == "state discovered -> ready: burn-in passed");
    CHECK(a->history[0].at <= a->history[1].at);
    CHECK(a->history[1].at < a->history[2].at);
  }
  SECTION("component") {
    auto a = lookupAsset(db, "GPU-A");
    REQUIRE_OK(a);
    CHECK(a->asset_type == "component");
    CHECK(a->kind == "gpu");
    CHECK(a->manufacturer == "NVIDIA");
    CHECK(a->model == "H100 SXM5 80GB");
    CHECK(a->part_number == "699-2G520-0200-000");
    CHECK(a->state == "ready");
    CHECK(a->firmware_version == "1.0");
    CHECK(a->location.site == "dc1");
    CHECK(a->location.rack == "R07");
    CHECK(a->location.u_position == 5);
    CHECK(a->location.node_id == node.id);
    CHECK(a->location.node_serial == "CHASSIS-1");
    CHECK(a->location.slot == "GPU_SXM_1");
    CHECK(a->po_number.empty());
    CHECK(a->components.empty());
    REQUIRE(a->history.size() == 1);
    CHECK(a->history[0].event == "installed");
    CHECK(a->history[0].node_id == node.id);
    CHECK(a->history[0].slot == "GPU_SXM_1");
  }
  SECTION("expected") {
    auto a = lookupAsset(db, "CHASSIS-2");
    REQUIRE_OK(a);
    CHECK(a->asset_type == "expected");
    CHECK(a->state == "ordered");
    CHECK(a->model == "DGX H100");
    CHECK(a->po_number == "PO-77");
    CHECK(a->location.rack == "R07");
    CHECK(a->location.u_position == 11);
    CHECK(a->location.site.empty());
    CHECK_FALSE(a->location.node_id.has_value());
    REQUIRE(a->history.size() == 1);
    CHECK(a->history[0].event == "ordered");
    CHECK(a->history[0].at.back() == 'Z');
  }
  SECTION("unknown") {
    auto a = lookupAsset(db, "NOWHERE");
    REQUIRE_FALSE(a.ok());
    CHECK(a.error().kind == common::ErrorKind::kNotFound);
    CHECK(a.error().code == "asset_not_found");
  }
}

#include <catch2/catch.hpp>

#include "integration/inventory_test_support.hpp"
#include "inventory/purchase_orders.hpp"

using namespace inventory;
using inventory_test::count;
using inventory_test::scalar;
using inventory_test::testBox;

namespace {

ExpectedAssetSpec unit(const std::string& serial, const std::string& mac,
                       const std::string& password = "factory-pw") {
  ExpectedAssetSpec u;
  u.chassis_serial = serial;
  u.model = "DGX H100";
  u.bmc_mac = mac;
  u.factory_username = "admin";
  u.factory_password = password;
  u.gpu_count = 8;
  u.rack = "R01";
  u.line_no = 1;
  return u;
}

PurchaseOrderSpec po(const std::string& number, std::vector<ExpectedAssetSpec> units) {
  PurchaseOrderSpec spec;
  spec.po_number = number;
  spec.vendor = "NVIDIA";
  spec.line_items = {LineItem{1, "DGX H100", 16, 8, "DGX H100 640GB"}};
  spec.assets = std::move(units);
  return spec;
}

// Nothing of a refused request may be left behind.
void requireUnchanged(const std::string& url, long long pos, long long lines, long long units) {
  CHECK(count(url, "purchase_orders") == pos);
  CHECK(count(url, "po_line_items") == lines);
  CHECK(count(url, "expected_assets") == units);
}

}  // namespace

TEST_CASE("purchase order: created and read back, passwords sealed and never stored plain",
          "[integration][inventory][purchase_orders]") {
  auto inv = inventory_test::freshInventory();
  auto& db = *inv.db;
  auto spec = po("PO-1", {unit("SN1", "5C:FF:35:00:00:01", "s3cret-one"), unit("SN2", "", "")});
  spec.assets[0].u_position = 2;
  auto created = createPurchaseOrder(db, testBox(), spec);
  REQUIRE_OK(created);
  CHECK(created->summary.po_number == "PO-1");
  CHECK(created->summary.vendor == "NVIDIA");
  CHECK(created->summary.status == "open");
  CHECK(created->summary.asset_count == 2);
  REQUIRE(created->line_items.size() == 1);
  CHECK(created->line_items[0].gpu_count == 8);
  REQUIRE(created->assets.size() == 2);
  CHECK(created->assets[0].chassis_serial == "SN1");
  CHECK(created->assets[0].bmc_mac == "5c:ff:35:00:00:01");
  CHECK(created->assets[0].has_factory_password);
  CHECK(created->assets[0].u_position == 2);
  CHECK_FALSE(created->assets[1].has_factory_password);

  std::string stored = scalar(inv.url,
                              "SELECT factory_password_sealed FROM expected_assets "
                              "WHERE chassis_serial = 'SN1'");
  CHECK(stored.rfind("v1:", 0) == 0);
  CHECK(stored.find("s3cret-one") == std::string::npos);
  CHECK(scalar(inv.url,
               "SELECT count(*) FROM expected_assets WHERE "
               "factory_password_sealed LIKE '%s3cret%'") == "0");

  auto creds = factoryCredentials(db, testBox(), "SN1");
  REQUIRE_OK(creds);
  CHECK(creds->username == "admin");
  CHECK(creds->password == "s3cret-one");
  CHECK(factoryCredentials(db, testBox(), "SN2").error().code == "factory_credentials_not_found");
  CHECK(factoryCredentials(db, testBox(), "nope").error().code == "asset_not_found");

  auto read = getPurchaseOrder(db, "PO-1");
  REQUIRE_OK(read);
  CHECK(read->assets.size() == 2);
  CHECK(getPurchaseOrder(db, "PO-404").error().code == "po_not_found");

  REQUIRE_OK(createPurchaseOrder(db, testBox(), po("PO-2", {})));
  auto page = listPurchaseOrders(db, PageRequest{0, 1});
  REQUIRE_OK(page);
  REQUIRE(page->items.size() == 1);
  CHECK(page->items[0].po_number == "PO-1");
  CHECK(page->items[0].asset_count == 2);
  REQUIRE(page->next_after.has_value());
  auto page2 = listPurchaseOrders(db, PageRequest{*page->next_after, 1});
  REQUIRE_OK(page2);
  REQUIRE(page2->items.size() == 1);
  CHECK(page2->items[0].po_number == "PO-2");
  CHECK_FALSE(page2->next_after.has_value());
}

TEST_CASE("purchase order: duplicates refused with the unit named, nothing stored",
          "[integration][inventory][purchase_orders]") {
  auto inv = inventory_test::freshInventory();
  auto& db = *inv.db;
  REQUIRE_OK(createPurchaseOrder(db, testBox(), po("PO-1", {unit("SN1", "aa:00:00:00:00:01")})));
  requireUnchanged(inv.url, 1, 1, 1);

  SECTION("duplicate PO number") {
    auto r = createPurchaseOrder(db, testBox(), po("PO-1", {unit("SN9", "")}));
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == "duplicate_po");
    CHECK(r.error().field == "po_number");
  }
  SECTION("serial already on another PO, named by array index") {
    auto r = createPurchaseOrder(db, testBox(), po("PO-2", {unit("SN5", ""), unit("SN1", "")}));
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().kind == common::ErrorKind::kConflict);
    CHECK(r.error().code == "duplicate_serial");
    CHECK(r.error().field == "assets[1].chassis_serial");
    CHECK(r.error().message == "chassis serial SN1 is already on PO-1");
  }
  SECTION("MAC already on another PO, named by CSV line") {
    auto spec = po("PO-2", {unit("SN5", ""), unit("SN6", "AA-00-00-00-00-01")});
    spec.assets[0].source_line = 2;
    spec.assets[1].source_line = 3;
    auto r = importShipNotice(db, testBox(), spec);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == "duplicate_bmc_mac");
    CHECK(r.error().field == "line 3");
  }
  SECTION("the same serial twice inside the request") {
    auto spec = po("PO-2", {unit("SN7", ""), unit("SN8", ""), unit("SN7", "")});
    auto r = createPurchaseOrder(db, testBox(), spec);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == "duplicate_serial");
    CHECK(r.error().field == "assets[2].chassis_serial");
  }
  SECTION("the same MAC twice inside the request, source_index wins over position") {
    auto spec = po("PO-2", {unit("SN7", "bb:00:00:00:00:01"), unit("SN8", "bb:00:00:00:00:01")});
    spec.assets[1].source_index = 5;
    auto r = createPurchaseOrder(db, testBox(), spec);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == "duplicate_bmc_mac");
    CHECK(r.error().field == "assets[5].bmc_mac");
  }
  SECTION("missing fields and bad MACs are bad input") {
    auto spec = po("PO-2", {unit("SN7", "")});
    spec.assets[0].model = "";
    CHECK(createPurchaseOrder(db, testBox(), spec).error().field == "assets[0].model");
    spec.assets[0].model = "DGX";
    spec.assets[0].bmc_mac = "zz";
    CHECK(createPurchaseOrder(db, testBox(), spec).error().code == "invalid_bmc_mac");
    spec.vendor = "";
    CHECK(createPurchaseOrder(db, testBox(), spec).error().field == "vendor");
  }
  requireUnchanged(inv.url, 1, 1, 1);
}

TEST_CASE("ship notice import creates the PO or adds to it, all or nothing",
          "[integration][inventory][purchase_orders]") {
  auto inv = inventory_test::freshInventory();
  auto& db = *inv.db;
  auto first = po("PO-9", {unit("SN1", ""), unit("SN2", "")});
  first.line_items.clear();
  auto created = importShipNotice(db, testBox(), first);
  REQUIRE_OK(created);
  CHECK(created->summary.asset_count == 2);

  auto more = po("PO-9", {unit("SN3", ""), unit("SN4", "")});
  more.line_items.clear();
  auto added = importShipNotice(db, testBox(), more);
  REQUIRE_OK(added);
  CHECK(added->summary.asset_count == 4);
  CHECK(added->assets.back().chassis_serial == "SN4");

  // Re-sending a notice with one known unit adds none of it.
  auto overlap = po("PO-9", {unit("SN5", ""), unit("SN2", "")});
  overlap.line_items.clear();
  overlap.assets[0].source_line = 2;
  overlap.assets[1].source_line = 3;
  auto r = importShipNotice(db, testBox(), overlap);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == "duplicate_serial");
  CHECK(r.error().field == "line 3");
  CHECK(r.error().message == "chassis serial SN2 is already on PO-9");
  requireUnchanged(inv.url, 1, 0, 4);

  auto other_vendor = po("PO-9", {unit("SN6", "")});
  other_vendor.vendor = "Supermicro";
  CHECK(importShipNotice(db, testBox(), other_vendor).error().code == "po_vendor_mismatch");
  requireUnchanged(inv.url, 1, 0, 4);
}

TEST_CASE("purchase order amendments: update, add, remove, status, and failures store nothing",
          "[integration][inventory][purchase_orders]") {
  auto inv = inventory_test::freshInventory();
  auto& db = *inv.db;
  REQUIRE_OK(createPurchaseOrder(db, testBox(),
                                 po("PO-1", {unit("SN1", "aa:00:00:00:00:01"), unit("SN2", "")})));
  REQUIRE_OK(createPurchaseOrder(db, testBox(), po("PO-2", {unit("SN9", "aa:00:00:00:00:09")})));

  SECTION("a good amendment") {
    PurchaseOrderAmendment a;
    a.status = "closed";
    a.add_line_items = {LineItem{2, "HGX B200", 4, 8, ""}};
    ExpectedAssetSpec change;
    change.chassis_serial = "SN2";
    change.bmc_mac = "AA:00:00:00:00:02";
    change.factory_password = "new-pw";
    change.u_position = 7;
    a.update_assets = {change};
    a.add_assets = {unit("SN3", "aa:00:00:00:00:01")};  // reuses SN1's MAC, removed below
    a.remove_serials = {"SN1"};
    auto r = amendPurchaseOrder(db, testBox(), "PO-1", a);
    REQUIRE_OK(r);
    CHECK(r->summary.status == "closed");
    CHECK(r->line_items.size() == 2);
    REQUIRE(r->assets.size() == 2);
    CHECK(r->assets[0].chassis_serial == "SN2");
    CHECK(r->assets[0].bmc_mac == "aa:00:00:00:00:02");
    CHECK(r->assets[0].u_position == 7);
    CHECK(r->assets[0].model == "DGX H100");  // empty fields keep what was stored
    CHECK(r->assets[0].gpu_count == 8);
    CHECK(r->assets[1].chassis_serial == "SN3");
    CHECK(factoryCredentials(db, testBox(), "SN2")->password == "new-pw");
  }

  SECTION("each kind of failure leaves the PO as it was") {
    PurchaseOrderAmendment a;
    a.vendor = "Other";
    a.remove_serials = {"SN2"};
    a.add_assets = {unit("SN4", ""), unit("SN9", "")};
    auto r = amendPurchaseOrder(db, testBox(), "PO-1", a);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == "duplicate_serial");
    CHECK(r.error().field == "add_assets[1].chassis_serial");
    CHECK(r.error().message == "chassis serial SN9 is already on PO-2");

    PurchaseOrderAmendment mac;
    ExpectedAssetSpec change;
    change.chassis_serial = "SN2";
    change.bmc_mac = "aa:00:00:00:00:09";
    mac.update_assets = {change};
    auto m = amendPurchaseOrder(db, testBox(), "PO-1", mac);
    REQUIRE_FALSE(m.ok());
    CHECK(m.error().code == "duplicate_bmc_mac");
    CHECK(m.error().field == "update_assets[0].bmc_mac");

    PurchaseOrderAmendment lines;
    lines.add_line_items = {LineItem{1, "again", 1, std::nullopt, ""}};
    auto l = amendPurchaseOrder(db, testBox(), "PO-1", lines);
    REQUIRE_FALSE(l.ok());
    CHECK(l.error().code == "duplicate_line_item");
    CHECK(l.error().field == "add_line_items[0].line_no");

    PurchaseOrderAmendment unknown;
    unknown.remove_serials = {"SN2", "NOPE"};
    auto u = amendPurchaseOrder(db, testBox(), "PO-1", unknown);
    REQUIRE_FALSE(u.ok());
    CHECK(u.error().code == "asset_not_found");
    CHECK(u.error().field == "remove_serials[1]");

    PurchaseOrderAmendment status;
    status.status = "shipped";
    CHECK(amendPurchaseOrder(db, testBox(), "PO-1", status).error().code == "invalid_status");
    CHECK(amendPurchaseOrder(db, testBox(), "PO-404", PurchaseOrderAmendment{}).error().code ==
          "po_not_found");

    auto after = getPurchaseOrder(db, "PO-1");
    REQUIRE_OK(after);
    CHECK(after->summary.vendor == "NVIDIA");
    CHECK(after->summary.status == "open");
    REQUIRE(after->assets.size() == 2);
    CHECK(after->assets[1].chassis_serial == "SN2");
    CHECK(after->assets[1].bmc_mac == "");
    requireUnchanged(inv.url, 2, 2, 3);
  }
}

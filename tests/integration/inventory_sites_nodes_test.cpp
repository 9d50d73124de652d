#include <catch2/catch.hpp>

#include "integration/inventory_test_support.hpp"
#include "inventory/nodes.hpp"
#include "inventory/sites.hpp"

using namespace inventory;
using inventory_test::makeNode;
using inventory_test::makeRack;

TEST_CASE("sites and racks: created, listed, duplicates and unknown sites refused",
          "[integration][inventory][sites]") {
  auto inv = inventory_test::freshInventory();
  auto& db = *inv.db;

  auto site = createSite(db, "dc1", "first hall");
  REQUIRE_OK(site);
  CHECK(site->name == "dc1");
  CHECK(site->description == "first hall");
  CHECK(site->created_at.size() == 27);
  CHECK(site->created_at.back() == 'Z');

  auto dup_site = createSite(db, "dc1", "again");
  REQUIRE_FALSE(dup_site.ok());
  CHECK(dup_site.error().kind == common::ErrorKind::kConflict);
  CHECK(dup_site.error().code == "duplicate_site");

  RackSpec spec{"dc1", "hall-a", "row-1", "R01", 48};
  auto rack = createRack(db, spec);
  REQUIRE_OK(rack);
  CHECK(rack->site == "dc1");
  CHECK(rack->room == "hall-a");
  CHECK(rack->row == "row-1");
  CHECK(rack->name == "R01");
  CHECK(rack->u_height == 48);
  CHECK(rack->node_count == 0);

  // Same room and row reused for the second rack.
  REQUIRE_OK(createRack(db, RackSpec{"dc1", "hall-a", "row-1", "R02", 42}));
  CHECK(inventory_test::count(inv.url, "rooms") == 1);
  CHECK(inventory_test::count(inv.url, "rows") == 1);

  auto dup = createRack(db, spec);
  REQUIRE_FALSE(dup.ok());
  CHECK(dup.error().kind == common::ErrorKind::kConflict);
  CHECK(dup.error().code == "duplicate_rack");
  CHECK(dup.error().field == "name");

  // The same rack name in another site is fine.
  REQUIRE_OK(createSite(db, "dc2", ""));
  REQUIRE_OK(createRack(db, RackSpec{"dc2", "", "", "R01", 42}));

  auto unknown = createRack(db, RackSpec{"nowhere", "", "", "R09", 42});
  REQUIRE_FALSE(unknown.ok());
  CHECK(unknown.error().kind == common::ErrorKind::kNotFound);
  CHECK(unknown.error().code == "site_not_found");

  auto bad_height = createRack(db, RackSpec{"dc1", "", "", "R10", 0});
  REQUIRE_FALSE(bad_height.ok());
  CHECK(bad_height.error().code == "invalid_u_height");

  auto got = getRack(db, rack->id);
  REQUIRE_OK(got);
  CHECK(got->name == "R01");
  CHECK(getRack(db, 999999).error().code == "rack_not_found");

  auto page1 = listRacks(db, "dc1", PageRequest{0, 1});
  REQUIRE_OK(page1);
  REQUIRE(page1->items.size() == 1);
  CHECK(page1->items[0].name == "R01");
  REQUIRE(page1->next_after.has_value());
  auto page2 = listRacks(db, "dc1", PageRequest{*page1->next_after, 1});
  REQUIRE_OK(page2);
  REQUIRE(page2->items.size() == 1);
  CHECK(page2->items[0].name == "R02");
  CHECK_FALSE(page2->next_after.has_value());
  auto all = listRacks(db, "", PageRequest{0, 50});
  REQUIRE_OK(all);
  CHECK(all->items.size() == 3);

  auto sites = listSites(db);
  REQUIRE_OK(sites);
  REQUIRE(sites->size() == 2);
  CHECK((*sites)[0].name == "dc1");
  CHECK((*sites)[1].name == "dc2");
}

TEST_CASE("nodes: registered with a timeline event, duplicates and bad positions refused",
          "[integration][inventory][nodes]") {
  auto inv = inventory_test::freshInventory();
  auto& db = *inv.db;
  Id rack = makeRack(db, "R01");

  NodeSpec spec;
  spec.chassis_serial = "SN-0001";
  spec.hardware_model = "DGX H100";
  spec.bmc_address = "10.1.0.5";
  spec.bmc_mac = "5C:FF:35:00:00:01";
  spec.rack_id = rack;
  spec.u_position = 2;
  auto node = createNode(db, spec, "alice");
  REQUIRE_OK(node);
  CHECK(node->chassis_serial == "SN-0001");
  CHECK(node->bmc_mac == "5c:ff:35:00:00:01");
  CHECK(node->state == "discovered");
  CHECK(node->site == "dc1");
  CHECK(node->rack == "R01");
  CHECK(node->u_position == 2);
  CHECK(node->gpu_count == 0);

  auto detail = getNodeDetail(db, node->id);
  REQUIRE_OK(detail);
  REQUIRE(detail->timeline.size() == 1);
  CHECK(detail->timeline[0].kind == "registered");
  CHECK(detail->timeline[0].actor == "alice");

  SECTION("duplicate chassis serial") {
    NodeSpec again = spec;
    again.bmc_mac = "";
    auto r = createNode(db, again, "alice");
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().kind == common::ErrorKind::kConflict);
    CHECK(r.error().code == "duplicate_serial");
    CHECK(r.error().field == "chassis_serial");
  }
  SECTION("duplicate BMC MAC, whatever its spelling") {
    NodeSpec again = spec;
    again.chassis_serial = "SN-0002";
    again.bmc_mac = "5c-ff-35-00-00-01";
    auto r = createNode(db, again, "alice");
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == "duplicate_bmc_mac");
    CHECK(r.error().field == "bmc_mac");
  }
  SECTION("U position above the rack's height") {
    NodeSpec again = spec;
    again.chassis_serial = "SN-0003";
    again.bmc_mac = "";
    again.u_position = 43;
    auto r = createNode(db, again, "alice");
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().kind == common::ErrorKind::kInvalidArgument);
    CHECK(r.error().code == "invalid_u_position");
  }
  SECTION("unknown rack, bad state, bad MAC") {
    NodeSpec again = spec;
    again.chassis_serial = "SN-0004";
    again.bmc_mac = "";
    again.rack_id = 424242;
    CHECK(createNode(db, again, "a").error().code == "rack_not_found");
    again.rack_id = rack;
    again.state = "flying";
    CHECK(createNode(db, again, "a").error().code == "invalid_state");
    again.state = "discovered";
    again.bmc_mac = "not-a-mac";
    CHECK(createNode(db, again, "a").error().code == "invalid_bmc_mac");
  }
  // Whatever failed above stored nothing.
  CHECK(inventory_test::count(inv.url, "nodes") == 1);
  CHECK(inventory_test::count(inv.url, "node_events") == 1);
}

TEST_CASE("nodes: state changes, events, filters and pages", "[integration][inventory][nodes]") {
  auto inv = inventory_test::freshInventory();
  auto& db = *inv.db;
  Id r1 = makeRack(db, "R01");
  Id r2 = makeRack(db, "R02");
  auto a = makeNode(db, "SN-A", "", r1, 1);
  auto b = makeNode(db, "SN-B", "", r1, 3, "HGX B200");
  auto c = makeNode(db, "SN-C", "", r2, 1);

  auto moved = setNodeState(db, b.id, "ready", "bob", "burn-in passed");
  REQUIRE_OK(moved);
  CHECK(moved->state == "ready");
  auto same = setNodeState(db, b.id, "ready", "bob", "again");
  REQUIRE_OK(same);
  CHECK(setNodeState(db, b.id, "nonsense", "bob", "").error().code == "invalid_state");
  CHECK(setNodeState(db, 99999, "ready", "bob", "").error().code == "node_not_found");

  auto detail = getNodeDetail(db, b.id);
  REQUIRE_OK(detail);
  REQUIRE(detail->timeline.size() == 2);  // registered, one state change (the repeat is a no-op)
  CHECK(detail->timeline[1].kind == "state_changed");
  CHECK(detail->timeline[1].message == "state discovered -> ready: burn-in passed");
  CHECK(detail->timeline[1].detail_json ==
        R"({"to": "ready", "from": "discovered", "reason": "burn-in passed"})");

  NodeEvent ev;
  ev.node_id = a.id;
  ev.actor = "agent";
  ev.kind = "burn_in_result";
  ev.message = "gpu stress passed";
  ev.detail_json = R"({"score": 0.97})";
  auto appended = appendNodeEvent(db, ev);
  REQUIRE_OK(appended);
  CHECK(appended->detail_json == R"({"score": 0.97})");
  ev.node_id = 99999;
  CHECK(appendNodeEvent(db, ev).error().code == "node_not_found");
  ev.node_id = a.id;
  ev.detail_json = "{not json";
  CHECK(appendNodeEvent(db, ev).error().kind == common::ErrorKind::kInvalidArgument);

  NodeFilter f;
  f.state = "ready";
  auto ready = listNodes(db, f);
  REQUIRE_OK(ready);
  REQUIRE(ready->items.size() == 1);
  CHECK(ready->items[0].chassis_serial == "SN-B");

  NodeFilter by_rack;
  by_rack.rack = "R01";
  by_rack.page.limit = 1;
  auto p1 = listNodes(db, by_rack);
  REQUIRE_OK(p1);
  REQUIRE(p1->items.size() == 1);
  CHECK(p1->items[0].chassis_serial == "SN-A");
  REQUIRE(p1->next_after == a.id);
  by_rack.page.after = *p1->next_after;
  auto p2 = listNodes(db, by_rack);
  REQUIRE_OK(p2);
  REQUIRE(p2->items.size() == 1);
  CHECK(p2->items[0].chassis_serial == "SN-B");
  CHECK_FALSE(p2->next_after.has_value());

  NodeFilter by_model;
  by_model.model = "DGX H100";
  by_model.site = "dc1";
  auto models = listNodes(db, by_model);
  REQUIRE_OK(models);
  REQUIRE(models->items.size() == 2);
  CHECK(models->items[0].id == a.id);
  CHECK(models->items[1].id == c.id);

  auto rack = getRack(db, r1);
  REQUIRE_OK(rack);
  CHECK(rack->node_count == 2);
  CHECK(getNode(db, 4242).error().code == "node_not_found");
}

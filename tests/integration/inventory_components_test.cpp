#include <catch2/catch.hpp>

#include "integration/inventory_test_support.hpp"
#include "inventory/assets.hpp"
#include "inventory/nodes.hpp"

using namespace inventory;
using inventory_test::gpu;
using inventory_test::makeNode;
using inventory_test::scalar;

namespace {

ComponentReport reportOf(std::vector<ObservedComponent> parts) {
  ComponentReport r;
  r.components = std::move(parts);
  r.actor = "redfish";
  return r;
}

std::vector<std::string> eventKinds(Database& db, Id node_id) {
  auto d = getNodeDetail(db, node_id);
  REQUIRE_OK(d);
  std::vector<std::string> kinds;
  for (const auto& e : d->timeline) kinds.push_back(e.kind);
  return kinds;
}

}  // namespace

TEST_CASE("component report: first report installs, an unchanged report is a no-op",
          "[integration][inventory][components]") {
  auto inv = inventory_test::freshInventory();
  auto& db = *inv.db;
  auto node = makeNode(db, "NODE-A");
  ObservedComponent cpu{"cpu", "CPU0", "Intel", "Xeon 8480+", "PN-CPU", "CPU-1", ""};
  auto report = reportOf({gpu("GPU-1", "GPU_SXM_1"), gpu("GPU-2", "GPU_SXM_2"), cpu});

  auto first = reportComponents(db, node.id, report);
  REQUIRE_OK(first);
  CHECK(first->installed == 3);
  CHECK(first->moved_in == 0);
  CHECK(first->removed == 0);
  CHECK(first->firmware_changed == 0);
  CHECK(first->unchanged == 0);

  auto n = getNode(db, node.id);
  REQUIRE_OK(n);
  CHECK(n->gpu_count == 2);
  auto detail = getNodeDetail(db, node.id);
  REQUIRE_OK(detail);
  REQUIRE(detail->components.size() == 3);
  CHECK(detail->components[0].kind == "cpu");
  CHECK(detail->components[1].serial == "GPU-1");
  CHECK(detail->components[1].slot == "GPU_SXM_1");
  CHECK(detail->components[1].firmware_version == "96.00.61.00.01");
  CHECK(detail->components[1].installed_at.back() == 'Z');

  auto placements = inventory_test::count(inv.url, "component_placements");
  auto firmware = inventory_test::count(inv.url, "component_firmware");
  auto events = inventory_test::count(inv.url, "node_events");
  CHECK(placements == 3);
  CHECK(firmware == 2);  // the CPU reported no firmware
  CHECK(events == 4);    // registered + 3 installed

  auto again = reportComponents(db, node.id, report);
  REQUIRE_OK(again);
  CHECK(again->installed == 0);
  CHECK(again->removed == 0);
  CHECK(again->firmware_changed == 0);
  CHECK(again->unchanged == 3);
  CHECK(inventory_test::count(inv.url, "component_placements") == placements);
  CHECK(inventory_test::count(inv.url, "component_firmware") == firmware);
  CHECK(inventory_test::count(inv.url, "node_events") == events);

  SECTION("bad reports are refused whole") {
    auto dup = reportOf({gpu("GPU-1", "A"), gpu("GPU-1", "B")});
    auto r = reportComponents(db, node.id, dup);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == "duplicate_serial");
    CHECK(r.error().field == "components[1].serial");
    auto bad_kind = reportOf({gpu("GPU-9", "A")});
    bad_kind.components[0].kind = "toaster";
    CHECK(reportComponents(db, node.id, bad_kind).error().field == "components[0].kind");
    auto rma = reportOf({});
    rma.reason = "rma";
    CHECK(reportComponents(db, node.id, rma).error().field == "rma_ticket");
    CHECK(reportComponents(db, 99999, report).error().code == "node_not_found");
    CHECK(inventory_test::count(inv.url, "component_placements") == placements);
  }
}

TEST_CASE("component history: a GPU moved from node A to node B keeps both placements",
          "[integration][inventory][components]") {
  auto inv = inventory_test::freshInventory();
  auto& db = *inv.db;
  auto a = makeNode(db, "NODE-A");
  auto b = makeNode(db, "NODE-B");
  REQUIRE_OK(
      reportComponents(db, a.id, reportOf({gpu("GPU-1", "GPU_SXM_1"), gpu("GPU-2", "GPU_SXM_2")})));

  auto moved = reportComponents(db, b.id, reportOf({gpu("GPU-1", "GPU_SXM_4")}));
  REQUIRE_OK(moved);
  CHECK(moved->installed == 1);
  CHECK(moved->moved_in == 1);
  CHECK(moved->removed == 0);

  // Node A's next report no longer lists GPU-1: it is already gone, so nothing is removed twice.
  auto a_report = reportComponents(db, a.id, reportOf({gpu("GPU-2", "GPU_SXM_2")}));
  REQUIRE_OK(a_report);
  CHECK(a_report->removed == 0);
  CHECK(a_report->unchanged == 1);

  CHECK(getNode(db, a.id)->gpu_count == 1);
  CHECK(getNode(db, b.id)->gpu_count == 1);
  CHECK(scalar(inv.url,
               "SELECT count(*) FROM component_placements p JOIN components c ON c.id = "
               "p.component_id WHERE c.serial = 'GPU-1'") == "2");
  CHECK(scalar(inv.url,
               "SELECT removal_reason FROM component_placements p JOIN components c ON c.id = "
               "p.component_id WHERE c.serial = 'GPU-1' AND p.node_id = " +
                   std::to_string(a.id)) == "moved");

  auto asset = lookupAsset(db, "GPU-1");
  REQUIRE_OK(asset);
  CHECK(asset->asset_type == "component");
  CHECK(asset->location.node_serial == "NODE-B");
  CHECK(asset->location.slot == "GPU_SXM_4");
  REQUIRE(asset->history.size() == 3);
  CHECK(asset->history[0].event == "installed");
  CHECK(asset->history[0].node_serial == "NODE-A");
  CHECK(asset->history[0].slot == "GPU_SXM_1");
  CHECK(asset->history[1].event == "removed");
  CHECK(asset->history[1].node_serial == "NODE-A");
  CHECK(asset->history[1].reason == "moved");
  CHECK(asset->history[2].event == "installed");
  CHECK(asset->history[2].node_serial == "NODE-B");
  CHECK(asset->history[2].slot == "GPU_SXM_4");
  CHECK(asset->history[0].at < asset->history[1].at);
  CHECK(asset->history[1].at == asset->history[2].at);  // one transaction moved it

  auto a_events = eventKinds(db, a.id);
  CHECK(a_events == std::vector<std::string>{"registered", "component_installed",
                                             "component_installed", "component_removed"});
  auto b_events = eventKinds(db, b.id);
  CHECK(b_events == std::vector<std::string>{"registered", "component_installed"});
  auto b_detail = getNodeDetail(db, b.id);
  REQUIRE_OK(b_detail);
  CHECK(b_detail->timeline[1].message ==
        "gpu GPU-1 installed in GPU_SXM_4 (moved from node NODE-A)");
}

TEST_CASE("component history: a firmware change keeps both versions",
          "[integration][inventory][components]") {
  auto inv = inventory_test::freshInventory();
  auto& db = *inv.db;
  auto node = makeNode(db, "NODE-A");
  REQUIRE_OK(reportComponents(db, node.id, reportOf({gpu("GPU-1", "GPU_SXM_1", "1.0")})));
  auto changed = reportComponents(db, node.id, reportOf({gpu("GPU-1", "GPU_SXM_1", "1.1")}));
  REQUIRE_OK(changed);
  CHECK(changed->firmware_changed == 1);
  CHECK(changed->unchanged == 0);
  CHECK(changed->installed == 0);

  CHECK(scalar(inv.url, "SELECT string_agg(version, ',' ORDER BY id) FROM component_firmware") ==
        "1.0,1.1");
  auto asset = lookupAsset(db, "GPU-1");
  REQUIRE_OK(asset);
  CHECK(asset->firmware_version == "1.1");
  REQUIRE(asset->history.size() == 2);
  CHECK(asset->history[1].event == "firmware_changed");
  CHECK(asset->history[1].from_version == "1.0");
  CHECK(asset->history[1].to_version == "1.1");

  NodeFilter f;
  f.firmware_version = "1.1";
  CHECK(listNodes(db, f)->items.size() == 1);
  f.firmware_version = "1.0";
  CHECK(listNodes(db, f)->items.empty());

  // History is append-only, enforced by the database too.
  CHECK_THROWS(scalar(inv.url, "UPDATE component_firmware SET version = 'x'"));
}

TEST_CASE("component history: an RMA removal records the reason and the ticket",
          "[integration][inventory][components]") {
  auto inv = inventory_test::freshInventory();
  auto& db = *inv.db;
  auto node = makeNode(db, "NODE-A");
  REQUIRE_OK(reportComponents(db, node.id, reportOf({gpu("GPU-1", "S1"), gpu("GPU-2", "S2")})));

  auto rma = reportOf({gpu("GPU-2", "S2")});
  rma.reason = "rma";
  rma.rma_ticket = "RMA-7781";
  auto r = reportComponents(db, node.id, rma);
  REQUIRE_OK(r);
  CHECK(r->removed == 1);
  CHECK(r->unchanged == 1);

  CHECK(scalar(inv.url,
               "SELECT removal_reason || '/' || rma_ticket FROM component_placements "
               "WHERE removed_at IS NOT NULL") == "rma/RMA-7781");
  auto asset = lookupAsset(db, "GPU-1");
  REQUIRE_OK(asset);
  CHECK(asset->state == "removed");
  CHECK_FALSE(asset->location.node_id.has_value());
  REQUIRE(asset->history.size() == 2);
  CHECK(asset->history[1].event == "removed");
  CHECK(asset->history[1].reason == "rma: RMA-7781");
  auto detail = getNodeDetail(db, node.id);
  REQUIRE_OK(detail);
  CHECK(detail->timeline.back().kind == "component_removed");
  CHECK(detail->timeline.back().message == "gpu GPU-1 removed from S1: rma (ticket RMA-7781)");
  CHECK(getNode(db, node.id)->gpu_count == 1);

  // The replacement part coming back later is installed again, history intact.
  auto back = reportComponents(db, node.id, reportOf({gpu("GPU-2", "S2"), gpu("GPU-1", "S1")}));
  REQUIRE_OK(back);
  CHECK(back->installed == 1);
  CHECK(back->moved_in == 0);
  CHECK(lookupAsset(db, "GPU-1")->history.size() == 3);
}

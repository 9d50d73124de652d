// End of life per asset: the rules of each disposition (pure), recording them in the inventory
// (only for what left service), the asset lookup's history and the replacement link, and the
// counts per purchase order and model, in the inventory and over HTTP.
#include <catch2/catch.hpp>

#include "integration/inventory_test_support.hpp"
#include "inventory/dispositions.hpp"
#include "inventory/nodes.hpp"
#include "inventory/purchase_orders.hpp"
#include "support/service_fixture.hpp"

using namespace inventory;
using nlohmann::json;

namespace {

DispositionSpec rma(const std::string& serial) {
  DispositionSpec s;
  s.serial = serial;
  s.disposition = "rma";
  s.rma_ticket = "RMA-7781";
  s.rma_vendor = "NVIDIA";
  s.shipped_on = "2026-12-01";
  s.recorded_by = "asset-team";
  return s;
}

DispositionSpec recycled(const std::string& serial) {
  DispositionSpec s;
  s.serial = serial;
  s.disposition = "recycled";
  s.recycler = "GreenCycle";
  s.recycler_certificate = "GC-2026-0042";
  s.weight_kg = 31.5;
  s.recorded_by = "asset-team";
  return s;
}

DispositionSpec plain(const std::string& serial, const std::string& disposition) {
  DispositionSpec s;
  s.serial = serial;
  s.disposition = disposition;
  s.recorded_by = "asset-team";
  return s;
}

void checkRefused(const DispositionSpec& spec, const std::string& code, const std::string& field) {
  auto r = validateDisposition(spec);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == code);
  CHECK(r.error().field == field);
}

Node retiredNode(Database& db, const std::string& serial, const std::string& model = "DGX H100") {
  auto node = inventory_test::makeNode(db, serial, "", std::nullopt, std::nullopt, model);
  auto retired = setNodeState(db, node.id, "retired", "test", "decommissioned");
  REQUIRE(retired.ok());
  return *retired;
}

void addPurchaseOrder(Database& db, const std::string& po,
                      const std::vector<std::pair<std::string, std::string>>& units) {
  PurchaseOrderSpec spec;
  spec.po_number = po;
  spec.vendor = "NVIDIA";
  for (const auto& [serial, model] : units) {
    ExpectedAssetSpec unit;
    unit.chassis_serial = serial;
    unit.model = model;
    spec.assets.push_back(unit);
  }
  REQUIRE_OK(createPurchaseOrder(db, inventory_test::testBox(), spec));
}

}  // namespace

TEST_CASE("each disposition asks for its own fields and refuses the others, naming them",
          "[integration][dispositions]") {
  CHECK(validateDisposition(rma("S1")).ok());
  CHECK(validateDisposition(recycled("S1")).ok());
  CHECK(validateDisposition(plain("S1", "spare")).ok());
  CHECK(validateDisposition(plain("S1", "redeploy")).ok());
  auto no_date = rma("S1");
  no_date.shipped_on.clear();  // recorded before it ships
  CHECK(validateDisposition(no_date).ok());

  checkRefused(plain("S1", "lost"), "invalid_disposition", "disposition");
  checkRefused(plain("", "spare"), "missing_field", "serial");
  auto no_actor = plain("S1", "spare");
  no_actor.recorded_by.clear();
  checkRefused(no_actor, "missing_field", "recorded_by");

  auto no_ticket = rma("S1");
  no_ticket.rma_ticket.clear();
  checkRefused(no_ticket, "missing_field", "rma_ticket");
  auto no_vendor = rma("S1");
  no_vendor.rma_vendor.clear();
  checkRefused(no_vendor, "missing_field", "rma_vendor");
  for (const char* bad : {"2026-02-30", "01/12/2026", "2026-1-01", "yesterday"}) {
    auto bad_date = rma("S1");
    bad_date.shipped_on = bad;
    checkRefused(bad_date, "invalid_field", "shipped_on");
  }
  auto itself = rma("S1");
  itself.replacement_serial = "S1";
  checkRefused(itself, "invalid_field", "replacement_serial");
  auto weighed = rma("S1");
  weighed.weight_kg = 3;
  checkRefused(weighed, "field_not_allowed", "weight_kg");

  auto no_recycler = recycled("S1");
  no_recycler.recycler.clear();
  checkRefused(no_recycler, "missing_field", "recycler");
  auto no_reference = recycled("S1");
  no_reference.recycler_certificate.clear();
  checkRefused(no_reference, "missing_field", "recycler_certificate");
  for (double bad : {0.0, -2.0, std::numeric_limits<double>::infinity()}) {
    auto bad_weight = recycled("S1");
    bad_weight.weight_kg = bad;
    checkRefused(bad_weight, "invalid_field", "weight_kg");
  }
  auto ticketed = recycled("S1");
  ticketed.rma_ticket = "RMA-1";
  checkRefused(ticketed, "field_not_allowed", "rma_ticket");

  auto spare = plain("S1", "spare");
  spare.recycler = "GreenCycle";
  checkRefused(spare, "field_not_allowed", "recycler");
  auto redeploy = plain("S1", "redeploy");
  redeploy.shipped_on = "2026-12-01";
  checkRefused(redeploy, "field_not_allowed", "shipped_on");
}

TEST_CASE("dispositions are recorded only for what left service, and kept as history",
          "[integration][dispositions]") {
  auto inv = inventory_test::freshInventory();
  auto& db = *inv.db;

  auto missing = recordDisposition(db, rma("NOWHERE"));
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().code == "asset_not_found");

  auto live = inventory_test::makeNode(db, "LIVE-1");
  REQUIRE_OK(setNodeState(db, live.id, "ready", "test", "in service"));
  auto unsanitized = recordDisposition(db, rma("LIVE-1"));
  REQUIRE_FALSE(unsanitized.ok());
  CHECK(unsanitized.error().code == "node_not_sanitized");

  ComponentReport report;
  report.components = {inventory_test::gpu("GPU-LIVE", "GPU1")};
  report.actor = "test";
  REQUIRE_OK(reportComponents(db, live.id, report));
  auto installed = recordDisposition(db, rma("GPU-LIVE"));
  REQUIRE_FALSE(installed.ok());
  CHECK(installed.error().code == "component_in_service");
  CHECK(inventory_test::count(inv.url, "asset_dispositions") == 0);

  // A node whose decommission failed: its parts may go back under RMA, nowhere else.
  REQUIRE_OK(setNodeState(db, live.id, "decommission_failed", "test", "stuck bits"));
  auto spare_part = recordDisposition(db, plain("GPU-LIVE", "spare"));
  REQUIRE_FALSE(spare_part.ok());
  CHECK(spare_part.error().code == "component_in_service");
  REQUIRE_OK(recordDisposition(db, rma("GPU-LIVE")));
  CHECK(inventory_test::count(inv.url, "asset_dispositions") == 1);

  auto node = retiredNode(db, "OLD-1");
  auto first = recordDisposition(db, rma("OLD-1"));
  REQUIRE_OK(first);
  CHECK(first->asset_type == "node");
  CHECK(first->node_id == node.id);
  CHECK(first->serial == "OLD-1");
  CHECK(first->shipped_on == "2026-12-01");
  CHECK(first->rma_ticket == "RMA-7781");
  CHECK_FALSE(first->weight_kg.has_value());
  CHECK(inventory_test::scalar(inv.url,
                               "SELECT count(*) FROM node_events WHERE kind = 'disposition' AND "
                               "node_id = " + std::to_string(node.id)) == "1");
  REQUIRE_OK(recordDisposition(db, recycled("OLD-1")));

  auto history = dispositionHistory(db, "OLD-1");
  REQUIRE_OK(history);
  REQUIRE(history->records.size() == 2);
  CHECK(history->records[0].disposition == "recycled");  // newest first: the current one
  CHECK(history->records[0].weight_kg == 31.5);
  CHECK(history->records[1].disposition == "rma");
  CHECK(history->replaces.empty());

  // A component of a retired node (or one in no node) may go back under RMA, and its
  // replacement's record links back to it.
  auto old_gpu_node = retiredNode(db, "OLD-2");
  report.components = {inventory_test::gpu("GPU-OLD", "GPU1")};
  REQUIRE_OK(reportComponents(db, old_gpu_node.id, report));
  auto part = rma("GPU-OLD");
  part.replacement_serial = "GPU-NEW";
  auto recorded = recordDisposition(db, part);
  REQUIRE_OK(recorded);
  CHECK(recorded->asset_type == "component");
  CHECK_FALSE(recorded->node_id.has_value());
  auto replacement = dispositionHistory(db, "GPU-NEW");
  REQUIRE_OK(replacement);
  CHECK(replacement->records.empty());
  REQUIRE(replacement->replaces.size() == 1);
  CHECK(replacement->replaces[0].serial == "GPU-OLD");
  CHECK(dispositionHistory(db, "NEVER")->records.empty());
}

TEST_CASE("end-of-life counts per purchase order and model", "[integration][dispositions]") {
  auto inv = inventory_test::freshInventory();
  auto& db = *inv.db;
  addPurchaseOrder(db, "PO-EOL",
                   {{"EOL-1", "DGX H100"},
                    {"EOL-2", "DGX H100"},
                    {"EOL-3", "DGX H100"},
                    {"EOL-4", "HGX B200"},
                    {"EOL-5", "HGX B200"}});
  retiredNode(db, "EOL-1");
  retiredNode(db, "EOL-2");
  retiredNode(db, "EOL-4", "HGX B200");
  inventory_test::makeNode(db, "EOL-3");  // still in bring-up; EOL-5 never arrived
  REQUIRE_OK(recordDisposition(db, plain("EOL-1", "spare")));
  REQUIRE_OK(recordDisposition(db, rma("EOL-2")));
  REQUIRE_OK(recordDisposition(db, rma("EOL-4")));
  REQUIRE_OK(recordDisposition(db, recycled("EOL-4")));  // its current disposition wins

  auto counts = endOfLifeCounts(db, "PO-EOL");
  REQUIRE_OK(counts);
  REQUIRE(counts->size() == 2);
  const auto& h100 = (*counts)[0];
  CHECK(h100.model == "DGX H100");
  CHECK(h100.units == 3);
  CHECK(h100.retired == 2);
  CHECK(h100.spare == 1);
  CHECK(h100.rma == 1);
  CHECK(h100.recycled == 0);
  const auto& b200 = (*counts)[1];
  CHECK(b200.model == "HGX B200");
  CHECK(b200.units == 2);
  CHECK(b200.retired == 1);
  CHECK(b200.rma == 0);
  CHECK(b200.recycled == 1);

  auto unknown = endOfLifeCounts(db, "PO-NONE");
  REQUIRE_FALSE(unknown.ok());
  CHECK(unknown.error().code == "po_not_found");
}

TEST_CASE("the asset API records a disposition and shows it with the asset",
          "[integration][api][dispositions]") {
  testing::ServiceFixture svc;
  addPurchaseOrder(svc.db(), "PO-API", {{"API-1", "DGX H100"}});
  retiredNode(svc.db(), "API-1");
  const std::string path = "/api/v1/assets/API-1/disposition";
  const json body = {{"disposition", "rma"},          {"rma_ticket", "RMA-1"},
                     {"rma_vendor", "Supermicro"},    {"shipped_on", "2026-12-02"},
                     {"replacement_serial", "API-2"}, {"note", "PSU fault"}};

  CHECK(svc.sendJson("POST", path, body, "viewer").status == 403);
  auto bad = svc.sendJson("POST", path, {{"disposition", "rma"}, {"rma_vendor", "X"}}, "operator");
  CHECK(bad.status == 400);
  CHECK(bad.json()["code"] == "missing_field");
  CHECK(bad.json()["field"] == "rma_ticket");
  auto bad_weight = svc.sendJson("POST", path,
                                 {{"disposition", "recycled"},
                                  {"recycler", "R"},
                                  {"recycler_certificate", "C"},
                                  {"weight_kg", "heavy"}},
                                 "operator");
  CHECK(bad_weight.status == 400);
  CHECK(bad_weight.json()["field"] == "weight_kg");
  auto unknown = svc.sendJson("POST", "/api/v1/assets/NOPE/disposition", body, "operator");
  CHECK(unknown.status == 404);
  CHECK(unknown.json()["code"] == "asset_not_found");

  auto created = svc.sendJson("POST", path, body, "operator");
  INFO(created.body);
  REQUIRE(created.status == 201);
  CHECK(created.json()["disposition"] == "rma");
  CHECK(created.json()["recorded_by"] == "test-operator");
  CHECK(created.json()["shipped_on"] == "2026-12-02");

  auto asset = svc.get("/api/v1/assets/API-1", "asset");
  REQUIRE(asset.status == 200);
  const auto a = asset.json();
  CHECK(a["state"] == "retired");
  CHECK(a["disposition"]["rma_ticket"] == "RMA-1");
  CHECK(a["dispositions"].size() == 1);
  bool in_history = false;
  for (const auto& h : a["history"]) {
    if (h["event"] == "disposition") in_history = h["reason"] == "rma: RMA-1";
  }
  CHECK(in_history);

  auto eol = svc.get("/api/v1/purchase-orders/PO-API/end-of-life", "viewer");
  REQUIRE(eol.status == 200);
  REQUIRE(eol.json()["models"].size() == 1);
  CHECK(eol.json()["models"][0]["rma"] == 1);
  CHECK(eol.json()["totals"]["retired"] == 1);
  CHECK(eol.json()["totals"]["units"] == 1);
  CHECK(svc.get("/api/v1/purchase-orders/PO-X/end-of-life").status == 404);
}

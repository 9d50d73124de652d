// Procurement endpoints: JSON and CSV purchase orders, validation, all-or-nothing uploads.
#include <catch2/catch.hpp>

#include "support/service_fixture.hpp"

using nlohmann::json;
using testing::ServiceFixture;

namespace {

json unit(const std::string& serial, const std::string& mac) {
  return {{"chassis_serial", serial},
          {"model", "DGX H100"},
          {"bmc_mac", mac},
          {"factory_username", "admin"},
          {"factory_password", "pw-" + serial},
          {"gpu_count", 8},
          {"rack", "R01"},
          {"u_position", 4}};
}

json purchaseOrder(const std::string& number) {
  return {
      {"po_number", number},
      {"vendor", "NVIDIA"},
      {"line_items", {{{"line_no", 1}, {"model", "DGX H100"}, {"quantity", 2}, {"gpu_count", 8}}}},
      {"assets", {unit("SN-A1", "5C:FF:35:00:00:01"), unit("SN-A2", "5cff35000002")}}};
}

const char* kCsvHeader = "serial,model,bmc_mac,factory_password,rack,u,gpu_count\n";

std::string importPath(const std::string& po) {
  return "/api/v1/purchase-orders/import?po_number=" + po + "&vendor=Supermicro";
}

}  // namespace

TEST_CASE("a purchase order is created, read back without passwords, and listed",
          "[integration][api][po]") {
  ServiceFixture svc;
  auto created = svc.sendJson("POST", "/api/v1/purchase-orders", purchaseOrder("PO-1"));
  REQUIRE(created.status == 201);
  auto po = created.json();
  CHECK(po["po_number"] == "PO-1");
  CHECK(po["asset_count"] == 2);
  REQUIRE(po["assets"].size() == 2);
  CHECK(po["assets"][0]["bmc_mac"] == "5c:ff:35:00:00:01");
  CHECK(po["assets"][1]["bmc_mac"] == "5c:ff:35:00:00:02");
  CHECK(po["assets"][0]["has_factory_password"] == true);
  CHECK(created.body.find("pw-SN-A1") == std::string::npos);

  auto fetched = svc.get("/api/v1/purchase-orders/PO-1", "viewer");
  REQUIRE(fetched.status == 200);
  CHECK(fetched.json()["line_items"][0]["quantity"] == 2);
  CHECK(fetched.body.find("pw-SN-A") == std::string::npos);
  CHECK(svc.get("/api/v1/purchase-orders/PO-404").json()["code"] == "po_not_found");
}

TEST_CASE("bad purchase order input is a 4xx naming the field", "[integration][api][po]") {
  ServiceFixture svc;
  auto malformed = svc.send("POST", "/api/v1/purchase-orders", "{\"po_number\": ");
  CHECK(malformed.status == 400);
  CHECK(malformed.json()["code"] == "malformed_json");

  auto wrong_type =
      svc.sendJson("POST", "/api/v1/purchase-orders", {{"po_number", 42}, {"vendor", "Dell"}});
  CHECK(wrong_type.status == 400);
  CHECK(wrong_type.json()["code"] == "invalid_field");
  CHECK(wrong_type.json()["field"] == "po_number");

  auto missing = svc.sendJson("POST", "/api/v1/purchase-orders", {{"po_number", "PO-2"}});
  CHECK(missing.status == 400);
  CHECK(missing.json()["code"] == "missing_field");
  CHECK(missing.json()["field"] == "vendor");

  json bad_mac = purchaseOrder("PO-3");
  bad_mac["assets"][1]["bmc_mac"] = "not-a-mac";
  auto mac = svc.sendJson("POST", "/api/v1/purchase-orders", bad_mac);
  CHECK(mac.status == 400);
  CHECK(mac.json()["code"] == "invalid_mac");
  CHECK(mac.json()["field"] == "assets[1].bmc_mac");

  json bad_u = purchaseOrder("PO-4");
  bad_u["assets"][0]["u_position"] = "four";
  CHECK(svc.sendJson("POST", "/api/v1/purchase-orders", bad_u).json()["field"] ==
        "assets[0].u_position");

  auto wrong_media = svc.send("POST", "/api/v1/purchase-orders", purchaseOrder("PO-5").dump(),
                              "admin", "text/plain");
  CHECK(wrong_media.status == 415);
  CHECK(wrong_media.json()["code"] == "unsupported_media_type");

  std::string huge = "{\"po_number\":\"PO-6\",\"vendor\":\"" + std::string(2 << 20, 'x') + "\"}";
  auto too_big = svc.send("POST", "/api/v1/purchase-orders", huge);
  CHECK(too_big.status == 413);
  CHECK(too_big.json()["code"] == "payload_too_large");

  // None of the refused orders left anything behind.
  CHECK(svc.get("/api/v1/purchase-orders").json()["items"].empty());
}

TEST_CASE("duplicate serials and PO numbers are conflicts and store nothing",
          "[integration][api][po]") {
  ServiceFixture svc;
  REQUIRE(svc.sendJson("POST", "/api/v1/purchase-orders", purchaseOrder("PO-1")).status == 201);

  auto again = svc.sendJson("POST", "/api/v1/purchase-orders", purchaseOrder("PO-1"));
  CHECK(again.status == 409);
  CHECK(again.json()["code"] == "duplicate_po");

  json reuse = purchaseOrder("PO-2");
  reuse["assets"] = {unit("SN-NEW", "5c:ff:35:00:00:09"), unit("SN-A2", "5c:ff:35:00:00:0a")};
  auto dup = svc.sendJson("POST", "/api/v1/purchase-orders", reuse);
  CHECK(dup.status == 409);
  CHECK(dup.json()["code"] == "duplicate_serial");
  CHECK(dup.json()["field"] == "assets[1].chassis_serial");
  CHECK(svc.get("/api/v1/purchase-orders/PO-2").status == 404);
  CHECK(svc.get("/api/v1/assets/SN-NEW").status == 404);
}

TEST_CASE("a ship notice CSV creates the PO; a bad line stores nothing", "[integration][api][po]") {
  ServiceFixture svc;
  std::string good = std::string(kCsvHeader) +
                     "SM-1,SYS-821GE-TNHR,3c:ec:ef:00:00:01,pw1,R07,10,8\n"
                     "SM-2,SYS-821GE-TNHR,3c:ec:ef:00:00:02,pw2,R07,14,8\n";
  auto created = svc.send("POST", importPath("PO-SM"), good, "procurement", "text/csv");
  REQUIRE(created.status == 201);
  CHECK(created.json()["asset_count"] == 2);
  CHECK(created.json()["vendor"] == "Supermicro");

  std::string bad = std::string(kCsvHeader) +
                    "SM-3,SYS-821GE-TNHR,3c:ec:ef:00:00:03,pw3,R07,18,8\n"
                    "SM-4,SYS-821GE-TNHR,3c:ec:ef:00:00:04,pw4,R07,twenty,8\n";
  auto refused = svc.send("POST", importPath("PO-SM"), bad, "procurement", "text/csv");
  CHECK(refused.status == 400);
  CHECK(refused.json()["code"] == "invalid_csv");
  CHECK(refused.json()["field"] == "line 3");
  CHECK(svc.get("/api/v1/purchase-orders/PO-SM").json()["asset_count"] == 2);
  CHECK(svc.get("/api/v1/assets/SM-3").status == 404);

  std::string dup = std::string(kCsvHeader) +
                    "SM-5,SYS-821GE-TNHR,3c:ec:ef:00:00:05,pw5,R07,22,8\n"
                    "SM-1,SYS-821GE-TNHR,3c:ec:ef:00:00:06,pw6,R07,26,8\n";
  auto conflict = svc.send("POST", importPath("PO-SM"), dup, "procurement", "text/csv");
  CHECK(conflict.status == 409);
  CHECK(conflict.json()["code"] == "duplicate_serial");
  CHECK(conflict.json()["field"] == "line 3");
  CHECK(svc.get("/api/v1/assets/SM-5").status == 404);

  auto no_column =
      svc.send("POST", importPath("PO-X"), "serial,model\nA,B\n", "procurement", "text/csv");
  CHECK(no_column.status == 400);
  CHECK(no_column.json()["field"] == "line 1");

  auto no_po =
      svc.send("POST", "/api/v1/purchase-orders/import?vendor=X", good, "procurement", "text/csv");
  CHECK(no_po.status == 400);
  CHECK(no_po.json()["field"] == "po_number");
}

TEST_CASE("a purchase order is amended: units added, updated and removed",
          "[integration][api][po]") {
  ServiceFixture svc;
  REQUIRE(svc.sendJson("POST", "/api/v1/purchase-orders", purchaseOrder("PO-1")).status == 201);
  json amendment = {{"status", "closed"},
                    {"add_assets", {unit("SN-A3", "5c:ff:35:00:00:03")}},
                    {"update_assets", {{{"chassis_serial", "SN-A1"}, {"rack", "R09"}}}},
                    {"remove_serials", {"SN-A2"}}};
  auto amended = svc.sendJson("PATCH", "/api/v1/purchase-orders/PO-1", amendment);
  REQUIRE(amended.status == 200);
  auto po = amended.json();
  CHECK(po["status"] == "closed");
  CHECK(po["asset_count"] == 2);
  std::map<std::string, std::string> racks;
  for (const auto& a : po["assets"]) racks[a["chassis_serial"]] = a["rack"];
  CHECK(racks == std::map<std::string, std::string>{{"SN-A1", "R09"}, {"SN-A3", "R01"}});

  auto bad_status = svc.sendJson("PATCH", "/api/v1/purchase-orders/PO-1", {{"status", "lost"}});
  CHECK(bad_status.status == 400);
  CHECK(bad_status.json()["field"] == "status");
  CHECK(svc.sendJson("PATCH", "/api/v1/purchase-orders/PO-9", {{"status", "open"}}).status == 404);
}

TEST_CASE("purchase orders page with an opaque cursor", "[integration][api][po]") {
  ServiceFixture svc;
  for (int i = 1; i <= 5; ++i) {
    json po = {{"po_number", "PO-P" + std::to_string(i)}, {"vendor", "HPE"}};
    REQUIRE(svc.sendJson("POST", "/api/v1/purchase-orders", po).status == 201);
  }
  std::vector<std::string> seen;
  std::string path = "/api/v1/purchase-orders?limit=2";
  for (int pages = 0; pages < 10; ++pages) {
    auto page = svc.get(path).json();
    for (const auto& item : page["items"]) seen.push_back(item["po_number"]);
    if (page["next_cursor"].is_null()) break;
    path = "/api/v1/purchase-orders?limit=2&cursor=" + page["next_cursor"].get<std::string>();
  }
  CHECK(seen == std::vector<std::string>{"PO-P1", "PO-P2", "PO-P3", "PO-P4", "PO-P5"});
  CHECK(svc.get("/api/v1/purchase-orders?cursor=garbage").json()["code"] == "invalid_cursor");
  CHECK(svc.get("/api/v1/purchase-orders?limit=0").json()["field"] == "limit");
}

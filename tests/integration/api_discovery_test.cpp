// The discovery triggers over HTTP with a real Engine: DHCP leases, rack manifests and the
// Redfish event receiver. Sweeps over a simulated fleet are in api_discovery_sweep_test.cpp.
#include <catch2/catch.hpp>

#include <pqxx/pqxx>

#include "common/secret_box.hpp"
#include "inventory/nodes.hpp"
#include "inventory/workflow_runs.hpp"
#include "support/service_fixture.hpp"
#include "workflows/engine.hpp"

using nlohmann::json;
using testing::ServiceFixture;

namespace {

json lease(const std::string& action, const std::string& mac, const std::string& ip) {
  return {{"action", action},
          {"mac", mac},
          {"ip", ip},
          {"hostname", "bmc-1"},
          {"vendor_class", "udhcp 1.30"}};
}

json bmcs(ServiceFixture& svc) {
  auto r = svc.get("/api/v1/discovery/bmcs?limit=100", "viewer");
  REQUIRE(r.status == 200);
  return r.json()["items"];
}

json manifest(int nodes) {
  json list = json::array();
  for (int i = 0; i < nodes; ++i) {
    list.push_back({{"u_position", 2 * i + 1},
                    {"bmc_mac", "02:00:00:00:10:0" + std::to_string(i)},
                    {"bmc_address", "10.1.0." + std::to_string(10 + i)},
                    {"chassis_serial", "SN-" + std::to_string(i)}});
  }
  return {{"site", "dc1"}, {"rack", "r07"}, {"nodes", list}};
}

// A node with a claimed BMC whose event subscription carries `secret`.
inventory::Id nodeWithEventSecret(ServiceFixture& svc, const std::string& secret) {
  inventory::NodeSpec spec;
  spec.chassis_serial = "EVT-1";
  spec.bmc_address = "10.2.0.5";
  auto node = inventory::createNode(svc.db(), spec, "test");
  REQUIRE(node);
  pqxx::connection c(svc.databaseUrl());
  pqxx::work w(c);
  w.exec_params(
      "INSERT INTO node_bmc_credentials (node_id, username, password_sealed, event_token_hash)"
      " VALUES ($1, 'provisioner', 'v1:sealed', $2)",
      node->id, common::sha256Hex(secret));
  w.commit();
  return node->id;
}

int nodeEventCount(ServiceFixture& svc, inventory::Id node, const std::string& kind) {
  pqxx::connection c(svc.databaseUrl());
  pqxx::nontransaction w(c);
  return w
      .exec_params1("SELECT count(*) FROM node_events WHERE node_id = $1 AND kind = $2", node,
                    kind)[0]
      .as<int>();
}

}  // namespace

TEST_CASE("a DHCP lease starts one lifecycle run and repeats find the same run",
          "[integration][api][discovery]") {
  ServiceFixture svc(testing::withEngine());
  auto first = svc.sendJson("POST", "/api/v1/discovery/leases",
                            lease("add", "02-00-00-00-00-AA", "10.0.0.5"), "operator");
  REQUIRE(first.status == 202);
  auto a = first.json();
  CHECK(a["run_created"] == true);
  CHECK(a["discovery"]["bmc_mac"] == "02:00:00:00:00:aa");
  CHECK(a["discovery"]["source"] == "dhcp");

  auto again = svc.sendJson("POST", "/api/v1/discovery/leases",
                            lease("old", "02:00:00:00:00:aa", "10.0.0.6"), "operator");
  REQUIRE(again.status == 202);
  auto b = again.json();
  CHECK(b["run_created"] == false);
  CHECK(b["run_id"] == a["run_id"]);
  CHECK(b["discovery"]["id"] == a["discovery"]["id"]);
  CHECK(b["discovery"]["seen_count"] == 2);
  CHECK(b["discovery"]["bmc_address"] == "10.0.0.6");

  auto run = inventory::getWorkflowRun(svc.db(), a["run_id"].get<inventory::Id>());
  REQUIRE(run);
  CHECK(run->subject == "bmc:02:00:00:00:00:aa");
  CHECK(run->kind == "node_lifecycle");
  CHECK(bmcs(svc).size() == 1);
}

TEST_CASE("a DHCP release only records and a later lease finds the same run",
          "[integration][api][discovery]") {
  ServiceFixture svc(testing::withEngine());
  auto add = svc.sendJson("POST", "/api/v1/discovery/leases",
                          lease("add", "02:00:00:00:00:bb", "10.0.0.7"), "operator")
                 .json();
  auto del = svc.sendJson("POST", "/api/v1/discovery/leases",
                          lease("del", "02:00:00:00:00:bb", "10.0.0.7"), "operator");
  REQUIRE(del.status == 202);
  CHECK(del.json()["run_id"].is_null());
  CHECK(del.json()["discovery"]["lease_state"] == "released");

  auto back = svc.sendJson("POST", "/api/v1/discovery/leases",
                           lease("add", "02:00:00:00:00:bb", "10.0.0.7"), "operator")
                  .json();
  CHECK(back["discovery"]["lease_state"] == "active");
  CHECK(back["run_id"] == add["run_id"]);
  CHECK(back["run_created"] == false);
}

TEST_CASE("a release of an unknown BMC starts nothing", "[integration][api][discovery]") {
  ServiceFixture svc(testing::withEngine());
  auto del = svc.sendJson("POST", "/api/v1/discovery/leases",
                          lease("del", "02:00:00:00:00:cc", "10.0.0.8"), "operator");
  REQUIRE(del.status == 202);
  auto runs = inventory::latestRunForSubject(svc.db(), "node_lifecycle", "bmc:02:00:00:00:00:cc");
  REQUIRE(runs);
  CHECK_FALSE(runs->has_value());
}

TEST_CASE("lease input errors name the field and write nothing", "[integration][api][discovery]") {
  ServiceFixture svc(testing::withEngine());
  auto bad_mac = svc.sendJson("POST", "/api/v1/discovery/leases",
                              lease("add", "02:00:00:00:zz", "10.0.0.5"), "operator");
  CHECK(bad_mac.status == 400);
  CHECK(bad_mac.json()["field"] == "mac");
  auto bad_ip = svc.sendJson("POST", "/api/v1/discovery/leases",
                             lease("add", "02:00:00:00:00:01", "10.0.0.500"), "operator");
  CHECK(bad_ip.status == 400);
  CHECK(bad_ip.json()["field"] == "ip");
  auto bad_action = svc.sendJson("POST", "/api/v1/discovery/leases",
                                 lease("renew", "02:00:00:00:00:01", "10.0.0.5"), "operator");
  CHECK(bad_action.status == 400);
  CHECK(bad_action.json()["field"] == "action");
  CHECK(bmcs(svc).empty());
}

TEST_CASE("discovery writes need the discover permission", "[integration][api][discovery]") {
  ServiceFixture svc(testing::withEngine());
  for (const char* role : {"viewer", "procurement", "asset"}) {
    INFO(role);
    auto r = svc.sendJson("POST", "/api/v1/discovery/leases",
                          lease("add", "02:00:00:00:00:02", "10.0.0.9"), role);
    CHECK(r.status == 403);
  }
  CHECK(bmcs(svc).empty());
  CHECK(svc.sendJson("POST", "/api/v1/discovery/leases",
                     lease("add", "02:00:00:00:00:02", "10.0.0.9"), "admin")
            .status == 202);
}

TEST_CASE("without the engine discovery answers 503 before writing",
          "[integration][api][discovery]") {
  ServiceFixture svc;
  auto r = svc.sendJson("POST", "/api/v1/discovery/leases",
                        lease("add", "02:00:00:00:00:03", "10.0.0.10"), "operator");
  CHECK(r.status == 503);
  CHECK(r.json()["code"] == "workflows_disabled");
  CHECK(bmcs(svc).empty());
}

TEST_CASE("a rack manifest records every BMC with its place and starts each",
          "[integration][api][discovery]") {
  ServiceFixture svc(testing::withEngine());
  auto r = svc.sendJson("POST", "/api/v1/discovery/rack-manifests", manifest(3), "operator");
  REQUIRE(r.status == 202);
  auto items = r.json()["items"];
  REQUIRE(items.size() == 3);
  for (const auto& item : items) CHECK(item["run_created"] == true);
  CHECK(items[1]["discovery"]["u_position"] == 3);
  CHECK(items[1]["discovery"]["expected_serial"] == "SN-1");

  // A later lease of the same BMC lacks the place: what the manifest said stays.
  auto l = svc.sendJson("POST", "/api/v1/discovery/leases",
                        lease("add", "02:00:00:00:10:01", "10.1.0.99"), "operator")
               .json();
  CHECK(l["run_id"] == items[1]["run_id"]);
  CHECK(l["discovery"]["rack"] == "r07");
  CHECK(l["discovery"]["site"] == "dc1");
  CHECK(l["discovery"]["u_position"] == 3);
  CHECK(l["discovery"]["expected_serial"] == "SN-1");
  CHECK(l["discovery"]["bmc_address"] == "10.1.0.99");

  // The same manifest again changes nothing but the sightings.
  auto again = svc.sendJson("POST", "/api/v1/discovery/rack-manifests", manifest(3), "operator");
  REQUIRE(again.status == 202);
  for (std::size_t i = 0; i < 3; ++i) {
    CHECK(again.json()["items"][i]["run_id"] == items[i]["run_id"]);
  }
  CHECK(bmcs(svc).size() == 3);
}

TEST_CASE("a manifest with one bad entry is refused whole", "[integration][api][discovery]") {
  ServiceFixture svc(testing::withEngine());
  auto bad = manifest(5);
  bad["nodes"][3]["bmc_mac"] = "not-a-mac";
  auto r = svc.sendJson("POST", "/api/v1/discovery/rack-manifests", bad, "operator");
  CHECK(r.status == 400);
  CHECK(r.json()["field"] == "nodes[3].bmc_mac");

  auto dup = manifest(3);
  dup["nodes"][2]["bmc_mac"] = dup["nodes"][0]["bmc_mac"];
  auto d = svc.sendJson("POST", "/api/v1/discovery/rack-manifests", dup, "operator");
  CHECK(d.status == 400);
  CHECK(d.json()["field"] == "nodes[2].bmc_mac");

  auto no_u = manifest(2);
  no_u["nodes"][1].erase("u_position");
  auto u = svc.sendJson("POST", "/api/v1/discovery/rack-manifests", no_u, "operator");
  CHECK(u.status == 400);
  CHECK(u.json()["field"] == "nodes[1].u_position");
  CHECK(bmcs(svc).empty());
}

TEST_CASE("the Redfish event receiver refuses a bad Context and records nothing",
          "[integration][api][discovery]") {
  ServiceFixture svc(testing::withEngine());
  auto node = nodeWithEventSecret(svc, "s3cret-value");
  const std::string id = std::to_string(node);
  for (const std::string& context :
       {std::string("node:") + id + ":wrong", std::string("node:") + id + ":",
        std::string("node:x:s3cret-value"),
        std::string("node:") + std::to_string(node + 1) + ":s3cret-value", std::string("")}) {
    INFO(context);
    json event = {{"Context", context}, {"Events", {{{"MessageId", "Base.1.0.Test"}}}}};
    auto r = svc.anonymous("POST", "/api/v1/events/redfish", event.dump(),
                           {{"Content-Type", "application/json"}});
    CHECK(r.status == 401);
    CHECK(r.body.find("s3cret") == std::string::npos);
  }
  auto missing = svc.anonymous("POST", "/api/v1/events/redfish", R"({"Events": []})",
                               {{"Content-Type", "application/json"}});
  CHECK(missing.status == 401);
  CHECK(nodeEventCount(svc, node, "redfish_event") == 0);
}

TEST_CASE("a Redfish event with the node's secret is recorded and wakes its lifecycle",
          "[integration][api][discovery]") {
  ServiceFixture svc(testing::withEngine());
  auto node = nodeWithEventSecret(svc, "s3cret-value");
  workflows::StartRequest start;
  start.kind = "node_lifecycle";
  start.subject = "bmc-at:10.2.0.5";
  start.node_id = node;
  auto run = svc.engine()->start(start);
  REQUIRE(run);
  auto before = inventory::getWorkflowRun(svc.db(), run->run_id);
  REQUIRE(before);

  json event = {{"Context", "node:" + std::to_string(node) + ":s3cret-value"},
                {"Events",
                 {{{"MessageId", "ResourceEvent.1.0.ResourceChanged"},
                   {"OriginOfCondition", {{"@odata.id", "/redfish/v1/Systems/1"}}}},
                  {{"MessageId", 42}}}}};
  auto r = svc.anonymous("POST", "/api/v1/events/redfish", event.dump(),
                         {{"Content-Type", "application/json"}});
  REQUIRE(r.status == 202);
  CHECK(r.json()["node_id"] == node);
  CHECK(nodeEventCount(svc, node, "redfish_event") == 1);

  pqxx::connection c(svc.databaseUrl());
  pqxx::nontransaction w(c);
  auto detail = json::parse(
      w.exec_params1("SELECT detail::text FROM node_events WHERE node_id = $1 AND kind = $2", node,
                     "redfish_event")[0]
          .as<std::string>());
  CHECK(detail["message_ids"] == json::array({"ResourceEvent.1.0.ResourceChanged"}));
  CHECK(detail["origins"] == json::array({"/redfish/v1/Systems/1"}));
  auto after = inventory::getWorkflowRun(svc.db(), run->run_id);
  REQUIRE(after);
  CHECK(after->wakeups == before->wakeups + 1);
}

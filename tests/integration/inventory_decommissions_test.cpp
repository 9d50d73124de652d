// Decommissions, device sanitizations, evidence and certificates, against a real PostgreSQL.
#include <catch2/catch.hpp>
#include <chrono>

#include "common/secret_box.hpp"
#include "integration/inventory_test_support.hpp"
#include "inventory/agent_tasks.hpp"
#include "inventory/decommissions.hpp"
#include "inventory/nodes.hpp"

using namespace inventory;
using inventory_test::count;
using inventory_test::makeNode;
using inventory_test::scalar;

namespace {

const DecommissionTime kAt = DecommissionTime(std::chrono::seconds(1'796'000'000));

DecommissionRequest request(Id node_id, std::string reason = "rma") {
  return DecommissionRequest{node_id, std::move(reason), "operator:alice", "fan noise", 42, kAt};
}

Node readyNode(Database& db, const std::string& serial) {
  auto node = makeNode(db, serial);
  auto ready = setNodeState(db, node.id, "ready", "test", "brought up");
  REQUIRE(ready.ok());
  return *ready;
}

DeviceSanitization gpuWiped(const std::string& serial, const std::string& result = "passed") {
  DeviceSanitization d;
  d.serial = serial;
  d.media_type = "gpu_hbm";
  d.manufacturer = "NVIDIA";
  d.model = "H100";
  d.sanitization = "purge";
  d.technique = "overwrite: pattern, pseudo-random, zero; verified on the device";
  d.tool = "provisioner-agent";
  d.tool_version = "0.3.0";
  d.verification_method = "full read-back on the device";
  d.verification_coverage = 0.99;
  d.verified_by = "provisioner-agent";
  d.result = result;
  d.started_at = "2026-12-03T10:00:00Z";
  d.finished_at = "2026-12-03T10:02:00Z";
  return d;
}

}  // namespace

TEST_CASE("a decommission moves the node out of service and refuses what must not happen",
          "[integration][inventory][decommission]") {
  auto inv = inventory_test::freshInventory();
  auto& db = *inv.db;
  auto node = readyNode(db, "NODE-D1");

  auto bad_reason = createDecommission(db, request(node.id, "bored"));
  REQUIRE_FALSE(bad_reason.ok());
  CHECK(bad_reason.error().code == "invalid_reason");
  CHECK(bad_reason.error().field == "reason");

  auto missing = createDecommission(db, request(99999));
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().code == "node_not_found");

  auto busy = makeNode(db, "NODE-BUSY");  // discovered: its bring-up owns it
  auto refused = createDecommission(db, request(busy.id));
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().code == "node_being_provisioned");
  CHECK(count(inv.url, "decommissions") == 0);

  auto d = createDecommission(db, request(node.id));
  REQUIRE_OK(d);
  CHECK(d->state == "running");
  CHECK(d->chassis_serial == "NODE-D1");
  CHECK(d->wipe_seed == 42);
  CHECK(getNode(db, node.id)->state == "decommissioning");
  CHECK(scalar(inv.url, "SELECT count(*) FROM node_events WHERE kind = 'decommission_requested'") ==
        "1");

  auto twice = createDecommission(db, request(node.id));
  REQUIRE_FALSE(twice.ok());
  CHECK(twice.error().code == "decommission_open");
}

TEST_CASE("devices, evidence and a certificate end a decommission once",
          "[integration][inventory][decommission]") {
  auto inv = inventory_test::freshInventory();
  auto& db = *inv.db;
  auto node = readyNode(db, "NODE-D2");
  auto d = createDecommission(db, request(node.id));
  REQUIRE_OK(d);

  REQUIRE_OK(recordDeviceSanitizations(db, d->id, {gpuWiped("GPU-1"), gpuWiped("GPU-2")}));
  // A resumed step records the same devices again: still one row each, the latest values.
  auto again = gpuWiped("GPU-2");
  again.verification_coverage = 0.98;
  REQUIRE_OK(recordDeviceSanitizations(db, d->id, {again}));
  auto devices = listDeviceSanitizations(db, d->id);
  REQUIRE_OK(devices);
  REQUIRE(devices->size() == 2);
  CHECK((*devices)[1].verification_coverage == Approx(0.98));
  REQUIRE((*devices)[0].started_at.has_value());
  CHECK((*devices)[0].started_at->rfind("2026-12-03T10:00:00", 0) == 0);  // as reported, in UTC

  auto evidence = recordEvidence(db, d->id, "agent_wipe_report", "{\"gpus\": []}", kAt);
  REQUIRE_OK(evidence);
  CHECK(evidence->sha256 == common::sha256Hex("{\"gpus\": []}"));
  // Evidence is never rewritten.
  REQUIRE_OK(recordEvidence(db, d->id, "agent_wipe_report", "tampered", kAt));
  CHECK(listEvidence(db, d->id)->at(0).body == "{\"gpus\": []}");

  Certificate c;
  c.key_id = "ed25519:0011223344556677";
  c.document = "{\"schema\": \"x\"}\n";
  c.signature = std::string(64, '\x07');
  auto issued = finishWithCertificate(db, d->id, c, "retired", kAt);
  REQUIRE_OK(issued);
  CHECK(issued->signature == c.signature);
  CHECK(issued->document_sha256 == common::sha256Hex(c.document));
  CHECK(getNode(db, node.id)->state == "retired");
  CHECK(getDecommission(db, d->id)->certificate_id == issued->id);
  CHECK(listCertificatesForSerial(db, "GPU-1")->size() == 1);
  CHECK(listCertificatesForSerial(db, "NODE-D2")->size() == 1);
  CHECK(listCertificatesForSerial(db, "GPU-9")->empty());

  auto late = failDecommission(db, d->id, "too late", "{}", kAt);
  REQUIRE_FALSE(late.ok());
  CHECK(late.error().code == "decommission_not_running");
  auto retired = createDecommission(db, request(node.id));
  REQUIRE_FALSE(retired.ok());
  CHECK(retired.error().code == "node_retired");
}

TEST_CASE("a failed decommission signs nothing and can be retried",
          "[integration][inventory][decommission]") {
  auto inv = inventory_test::freshInventory();
  auto& db = *inv.db;
  auto node = readyNode(db, "NODE-D3");
  auto d = createDecommission(db, request(node.id, "disposal"));
  REQUIRE_OK(d);
  auto failed = failDecommission(db, d->id, "GPU GPU-7: 12 mismatches in the verify pass",
                                 "{\"serial\": \"GPU-7\"}", kAt);
  REQUIRE_OK(failed);
  CHECK(failed->state == "failed");
  CHECK(getNode(db, node.id)->state == "decommission_failed");
  CHECK(count(inv.url, "sanitization_certificates") == 0);
  REQUIRE_OK(createDecommission(db, request(node.id, "disposal")));
}

TEST_CASE("retiring a node's secrets removes credentials, boot MACs and agent tokens",
          "[integration][inventory][decommission]") {
  auto inv = inventory_test::freshInventory();
  auto& db = *inv.db;
  auto node = readyNode(db, "NODE-D4");
  REQUIRE_OK(addBootMacs(db, node.id, {"b8:3f:d2:00:00:41"}, "operator"));
  auto retired = retireNodeSecrets(db, node.id);
  REQUIRE_OK(retired);
  CHECK(retired->boot_macs == 1);
  CHECK(listBootMacs(db, node.id)->empty());
  auto again = retireNodeSecrets(db, node.id);
  REQUIRE_OK(again);
  CHECK(again->boot_macs == 0);
}

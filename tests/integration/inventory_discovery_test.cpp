// BMC discoveries and sweep records in PostgreSQL: one row per BMC however it is seen.
#include <catch2/catch.hpp>

#include "inventory/bmc_credentials.hpp"
#include "inventory/discovery.hpp"
#include "inventory_test_support.hpp"

using inventory_test::freshInventory;
using inventory_test::makeNode;

namespace {

inventory::DiscoveryReport dhcp(const std::string& mac, const std::string& address) {
  inventory::DiscoveryReport r;
  r.bmc_mac = mac;
  r.bmc_address = address;
  r.source = "dhcp";
  return r;
}

inventory::DiscoveryReport sweep(const std::string& address) {
  inventory::DiscoveryReport r;
  r.bmc_address = address;
  r.source = "sweep";
  r.rack = "r02";
  return r;
}

}  // namespace

TEST_CASE("recordDiscovery by MAC creates once and refreshes after",
          "[integration][inventory][discovery]") {
  auto inv = freshInventory();
  auto first = inventory::recordDiscovery(*inv.db, dhcp("AA:BB:CC:00:00:01", "10.0.0.1"));
  REQUIRE_OK(first);
  CHECK(first->created);
  CHECK(first->discovery.bmc_mac == "aa:bb:cc:00:00:01");
  CHECK(first->discovery.seen_count == 1);
  CHECK(first->discovery.lease_state == "active");
  auto released = dhcp("aa:bb:cc:00:00:01", "10.0.0.2");
  released.released = true;
  auto second = inventory::recordDiscovery(*inv.db, released);
  REQUIRE_OK(second);
  CHECK_FALSE(second->created);
  CHECK(second->discovery.id == first->discovery.id);
  CHECK(second->discovery.seen_count == 2);
  CHECK(second->discovery.bmc_address == "10.0.0.2");
  CHECK(second->discovery.lease_state == "released");
  CHECK(inventory_test::count(inv.url, "bmc_discoveries") == 1);
}

TEST_CASE("recordDiscovery refuses a bad MAC and a missing address",
          "[integration][inventory][discovery]") {
  auto inv = freshInventory();
  auto bad = inventory::recordDiscovery(*inv.db, dhcp("aa:bb", "10.0.0.1"));
  REQUIRE_FALSE(bad);
  CHECK(bad.error().code == "invalid_mac");
  CHECK(bad.error().field == "bmc_mac");
  auto no_address = inventory::recordDiscovery(*inv.db, dhcp("aa:bb:cc:00:00:01", ""));
  REQUIRE_FALSE(no_address);
  CHECK(no_address.error().field == "bmc_address");
  CHECK(inventory_test::count(inv.url, "bmc_discoveries") == 0);
}

TEST_CASE("a sweep after a lease finds the leased BMC's row",
          "[integration][inventory][discovery]") {
  auto inv = freshInventory();
  auto leased = inventory::recordDiscovery(*inv.db, dhcp("aa:bb:cc:00:00:02", "10.0.0.3"));
  REQUIRE_OK(leased);
  auto swept = inventory::recordDiscovery(*inv.db, sweep("10.0.0.3"));
  REQUIRE_OK(swept);
  CHECK_FALSE(swept->created);
  CHECK(swept->discovery.id == leased->discovery.id);
  CHECK(swept->discovery.rack == "r02");
  CHECK(swept->discovery.source == "dhcp");
}

TEST_CASE("a BMC swept by address takes its MAC when a lease names it",
          "[integration][inventory][discovery]") {
  auto inv = freshInventory();
  auto swept = inventory::recordDiscovery(*inv.db, sweep("10.0.0.4"));
  REQUIRE_OK(swept);
  CHECK(swept->created);
  CHECK(swept->discovery.bmc_mac.empty());
  auto again = inventory::recordDiscovery(*inv.db, sweep("10.0.0.4"));
  REQUIRE_OK(again);
  CHECK(again->discovery.id == swept->discovery.id);
  auto leased = inventory::recordDiscovery(*inv.db, dhcp("aa:bb:cc:00:00:03", "10.0.0.4"));
  REQUIRE_OK(leased);
  CHECK_FALSE(leased->created);
  CHECK(leased->discovery.id == swept->discovery.id);
  CHECK(leased->discovery.bmc_mac == "aa:bb:cc:00:00:03");
  CHECK(leased->discovery.rack == "r02");
  CHECK(leased->discovery.seen_count == 3);
}

TEST_CASE("discoveries page by id and link to their node", "[integration][inventory][discovery]") {
  auto inv = freshInventory();
  for (int i = 0; i < 5; ++i) {
    REQUIRE_OK(inventory::recordDiscovery(*inv.db, sweep("10.0.1." + std::to_string(i + 1))));
  }
  auto page = inventory::listDiscoveries(*inv.db, {0, 3});
  REQUIRE_OK(page);
  REQUIRE(page->items.size() == 3);
  REQUIRE(page->next_after);
  auto rest = inventory::listDiscoveries(*inv.db, {*page->next_after, 3});
  REQUIRE_OK(rest);
  CHECK(rest->items.size() == 2);
  CHECK_FALSE(rest->next_after);

  auto node = makeNode(*inv.db, "SER-1");
  const auto id = page->items[0].id;
  REQUIRE_OK(inventory::linkDiscoveryToNode(*inv.db, id, node.id, "AA-BB-CC-00-00-09"));
  auto linked = inventory::getDiscovery(*inv.db, id);
  REQUIRE_OK(linked);
  CHECK(linked->node_id == node.id);
  CHECK(linked->bmc_mac == "aa:bb:cc:00:00:09");
  auto missing = inventory::linkDiscoveryToNode(*inv.db, 999999, node.id, "");
  REQUIRE_FALSE(missing);
  CHECK(missing.error().code == "discovery_not_found");
}

TEST_CASE("sweep records go from running to done with progress",
          "[integration][inventory][discovery]") {
  auto inv = freshInventory();
  inventory::NewSweep request;
  request.cidr = "10.0.0.0/24";
  request.addresses = 254;
  request.requested_by = "alice";
  auto sweep_row = inventory::createSweep(*inv.db, request);
  REQUIRE_OK(sweep_row);
  CHECK(sweep_row->state == "running");
  CHECK(sweep_row->port == 443);
  CHECK(sweep_row->finished_at.empty());
  REQUIRE_OK(inventory::updateSweepProgress(*inv.db, sweep_row->id, 100, 4));
  auto done = inventory::finishSweep(*inv.db, sweep_row->id, "done", "");
  REQUIRE_OK(done);
  CHECK(done->state == "done");
  CHECK(done->probed == 100);
  CHECK(done->found == 4);
  CHECK_FALSE(done->finished_at.empty());
  request.scheme = "ftp";
  auto bad = inventory::createSweep(*inv.db, request);
  REQUIRE_FALSE(bad);
  CHECK(bad.error().field == "scheme");
}

TEST_CASE("an event token hash names its node only", "[integration][inventory][discovery]") {
  auto inv = freshInventory();
  auto node = makeNode(*inv.db, "SER-2");
  const std::string hash = common::sha256Hex("secret");
  auto none = inventory::setBmcEventTokenHash(*inv.db, node.id, hash);
  REQUIRE_FALSE(none);
  CHECK(none.error().code == "bmc_credentials_not_found");
  inventory_test::scalar(inv.url,
                         "INSERT INTO node_bmc_credentials (node_id, username, "
                         "password_sealed) VALUES (" +
                             std::to_string(node.id) + ", 'p', 'v1:x') RETURNING 1");
  auto before = inventory::nodeForBmcEventToken(*inv.db, node.id, hash);
  REQUIRE_OK(before);
  CHECK_FALSE(before->has_value());
  REQUIRE_OK(inventory::setBmcEventTokenHash(*inv.db, node.id, hash));
  auto found = inventory::nodeForBmcEventToken(*inv.db, node.id, hash);
  REQUIRE_OK(found);
  CHECK(*found == std::optional<inventory::Id>(node.id));
  auto other = inventory::nodeForBmcEventToken(*inv.db, node.id + 1, hash);
  REQUIRE_OK(other);
  CHECK_FALSE(other->has_value());
  auto wrong = inventory::nodeForBmcEventToken(*inv.db, node.id, common::sha256Hex("other"));
  REQUIRE_OK(wrong);
  CHECK_FALSE(wrong->has_value());
}

#include "integration/inventory_test_support.hpp"

#include <pqxx/pqxx>

#include "inventory/migrations.hpp"
#include "inventory/nodes.hpp"
#include "inventory/sites.hpp"
#include "support/test_database.hpp"

namespace inventory_test {

Inventory freshInventory(std::size_t pool_size) {
  Inventory inv;
  inv.url = testing::freshDatabaseUrl();
  auto files = inventory::loadMigrations(testing::migrationsDir());
  REQUIRE_OK(files);
  auto applied = inventory::applyMigrations(inv.url, *files);
  REQUIRE_OK(applied);
  auto db = inventory::Database::connect(inv.url, pool_size);
  REQUIRE_OK(db);
  inv.db = *db;
  return inv;
}

std::string scalar(const std::string& url, const std::string& sql) {
  pqxx::connection c(url);
  pqxx::nontransaction tx(c);
  auto r = tx.exec(sql);
  if (r.empty()) return "";
  return r[0][0].is_null() ? "<null>" : r[0][0].c_str();
}

long long count(const std::string& url, const std::string& table) {
  return std::stoll(scalar(url, "SELECT count(*) FROM " + table));
}

const common::SecretBox& testBox() {
  static const common::SecretBox box = common::SecretBox::fromKeyText(std::string(64, 'a')).value();
  return box;
}

inventory::Id makeRack(inventory::Database& db, const std::string& rack, const std::string& site) {
  auto sites = inventory::listSites(db);
  REQUIRE_OK(sites);
  bool exists = false;
  for (const auto& s : *sites) exists = exists || s.name == site;
  if (!exists) {
    auto created = inventory::createSite(db, site, "test site");
    REQUIRE_OK(created);
  }
  inventory::RackSpec spec;
  spec.site = site;
  spec.room = "hall-a";
  spec.row = "row-1";
  spec.name = rack;
  spec.u_height = 42;
  auto r = inventory::createRack(db, spec);
  REQUIRE_OK(r);
  return r->id;
}

inventory::Node makeNode(inventory::Database& db, const std::string& serial, const std::string& mac,
                         std::optional<inventory::Id> rack_id, std::optional<int> u,
                         const std::string& model) {
  inventory::NodeSpec spec;
  spec.chassis_serial = serial;
  spec.hardware_model = model;
  spec.bmc_address = "10.0.0.1";
  spec.bmc_mac = mac;
  spec.rack_id = rack_id;
  spec.u_position = u;
  auto n = inventory::createNode(db, spec, "test");
  REQUIRE_OK(n);
  return *n;
}

inventory::ObservedComponent gpu(const std::string& serial, const std::string& slot,
                                 const std::string& firmware) {
  inventory::ObservedComponent c;
  c.kind = "gpu";
  c.slot = slot;
  c.manufacturer = "NVIDIA";
  c.model = "H100 SXM5 80GB";
  c.part_number = "699-2G520-0200-000";
  c.serial = serial;
  c.firmware_version = firmware;
  return c;
}

}  // namespace inventory_test

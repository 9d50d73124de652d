// Helpers for the inventory integration tests: a migrated fresh database, raw SQL reads for
// checking what was really stored, and small builders for sites, racks and nodes.
#pragma once

#include <catch2/catch.hpp>
#include <string>

#include "common/result.hpp"
#include "common/secret_box.hpp"
#include "inventory/database.hpp"
#include "inventory/types.hpp"

namespace inventory_test {

// Explains a failed Result in the test log.
template <class T>
std::string describe(const common::Result<T>& r) {
  if (r.ok()) return "ok";
  const auto& e = r.error();
  return std::string(common::toString(e.kind)) + " " + e.code + ": " + e.message + " [field " +
         e.field + "] [" + e.detail + "]";
}

// Evaluates `result` once (it may be a call that writes), explains it, and requires success.
#define REQUIRE_OK(result)                                \
  do {                                                    \
    const auto& require_ok_result_ = (result);            \
    INFO(::inventory_test::describe(require_ok_result_)); \
    REQUIRE(require_ok_result_.ok());                     \
  } while (false)

struct Inventory {
  std::string url;
  inventory::DatabasePtr db;
};

// A new database with every migration applied, and a pool of `pool_size` on it.
Inventory freshInventory(std::size_t pool_size = 4);

// Runs `sql` on a connection of its own; the first column of the first row as text, "" when
// there is no row, "<null>" for NULL.
std::string scalar(const std::string& url, const std::string& sql);
long long count(const std::string& url, const std::string& table);

const common::SecretBox& testBox();

// Site "dc1" with rack `rack` (42U, room "hall-a", row "row-1"); returns the rack id.
inventory::Id makeRack(inventory::Database& db, const std::string& rack = "R01",
                       const std::string& site = "dc1");
// Registers a node with the given serial and MAC (empty: none), optionally racked.
inventory::Node makeNode(inventory::Database& db, const std::string& serial,
                         const std::string& mac = "",
                         std::optional<inventory::Id> rack_id = std::nullopt,
                         std::optional<int> u = std::nullopt,
                         const std::string& model = "DGX H100");

inventory::ObservedComponent gpu(const std::string& serial, const std::string& slot,
                                 const std::string& firmware = "96.00.61.00.01");

}  // namespace inventory_test

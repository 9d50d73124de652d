// One unit on order, found by what a BMC tells about itself: its MAC or its chassis serial.
#include "db.hpp"
#include "inventory/purchase_orders.hpp"
#include "queries_expected_units.hpp"
#include "values.hpp"

namespace inventory {
namespace {

using Found = std::optional<ExpectedUnit>;

ExpectedUnit unitFromRow(const pqxx::row& row) {
  ExpectedUnit u;
  u.asset.id = detail::id(row[0]);
  u.asset.chassis_serial = row[1].c_str();
  u.asset.model = row[2].c_str();
  u.asset.bmc_mac = row[3].c_str();
  u.asset.factory_username = row[4].c_str();
  u.asset.has_factory_password = row[5].as<bool>();
  u.asset.gpu_count = detail::optInt(row[6]);
  u.asset.rack = row[7].c_str();
  u.asset.u_position = detail::optInt(row[8]);
  u.asset.line_no = detail::optInt(row[9]);
  u.po_number = row[10].c_str();
  return u;
}

common::Result<Found> findUnit(Database& db, const char* operation, const detail::Query& query,
                               const std::string& key) {
  return detail::withRead(db, operation, [&](detail::Tx& tx) -> common::Result<Found> {
    auto rows = tx.exec(query, key);
    if (rows.empty()) return Found();
    return Found(unitFromRow(rows[0]));
  });
}

}  // namespace

common::Result<std::optional<ExpectedUnit>> expectedUnitByBmcMac(Database& db,
                                                                 const std::string& bmc_mac) {
  auto mac = detail::normalizeMac(bmc_mac);
  if (!mac || mac->empty()) return Found();
  return findUnit(db, "expected_unit_by_bmc_mac", detail::kSelectExpectedUnitByMac, *mac);
}

common::Result<std::optional<ExpectedUnit>> expectedUnitBySerial(
    Database& db, const std::string& chassis_serial) {
  if (chassis_serial.empty()) return Found();
  return findUnit(db, "expected_unit_by_serial", detail::kSelectExpectedUnitBySerial,
                  chassis_serial);
}

}  // namespace inventory

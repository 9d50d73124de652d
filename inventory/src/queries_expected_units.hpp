// SQL of single units on order looked up by BMC MAC or chassis serial (the match step).
#pragma once

#include "db.hpp"

// Columns read by unitFromRow() (expected_units.cpp).
#define INVENTORY_EXPECTED_UNIT_SELECT                                                   \
  "SELECT e.id, e.chassis_serial, e.model, coalesce(e.bmc_mac, ''), e.factory_username," \
  " e.factory_password_sealed IS NOT NULL, coalesce(e.gpu_count, li.gpu_count), e.rack," \
  " e.u_position, e.line_no, po.po_number"                                               \
  " FROM expected_assets e JOIN purchase_orders po ON po.id = e.po_id"                   \
  " LEFT JOIN po_line_items li ON li.po_id = e.po_id AND li.line_no = e.line_no"

namespace inventory::detail {

constexpr Query kSelectExpectedUnitByMac{"select_expected_unit_by_mac",
                                         INVENTORY_EXPECTED_UNIT_SELECT " WHERE e.bmc_mac = $1"};
constexpr Query kSelectExpectedUnitBySerial{"select_expected_unit_by_serial",
                                            INVENTORY_EXPECTED_UNIT_SELECT
                                            " WHERE e.chassis_serial = $1"};

}  // namespace inventory::detail

#undef INVENTORY_EXPECTED_UNIT_SELECT

// Shared by the purchase order writers and readers: unit validation, duplicate detection that
// names the offending unit, inserts, and reading a whole purchase order in a transaction.
#pragma once

#include <string_view>

#include "common/secret_box.hpp"
#include "db.hpp"
#include "inventory/purchase_orders.hpp"

namespace inventory::detail {

// A list of units from one request field ("assets", "add_assets", "update_assets").
struct UnitList {
  const std::vector<ExpectedAssetSpec>& units;
  std::string_view name;
  bool updates = false;  // units to change, matched by serial: only their MAC can collide
};

// "line 7" when the unit came from a CSV line, else "<list>[i].<field>".
std::string unitField(const ExpectedAssetSpec& unit, std::size_t position, std::string_view list,
                      std::string_view field);

// Checks each unit and normalises its MAC (new units need serial and model).
common::Result<std::vector<ExpectedAssetSpec>> normaliseUnits(
    const std::vector<ExpectedAssetSpec>& units, std::string_view list, bool updates);
common::Result<void> validateLineItems(const std::vector<LineItem>& items, std::string_view list);

// The same serial or MAC twice in the request: Conflict naming the later unit.
common::Result<void> checkRequestDuplicates(std::initializer_list<UnitList> lists);
// A serial or MAC already on any purchase order: Conflict naming the unit and that PO.
common::Result<void> checkStoredDuplicates(Tx& tx, const UnitList& list);
// Line numbers twice in the request or already on the PO (po_id 0: a new PO).
common::Result<void> checkLineNumbers(Tx& tx, Id po_id, const std::vector<LineItem>& items,
                                      std::string_view list);

void insertLineItems(Tx& tx, Id po_id, const std::vector<LineItem>& items);
common::Result<void> insertUnits(Tx& tx, const common::SecretBox& box, Id po_id,
                                 const std::vector<ExpectedAssetSpec>& units);

common::Result<PurchaseOrder> readPurchaseOrder(Tx& tx, const std::string& po_number);
common::Error poNotFound(const std::string& po_number);

}  // namespace inventory::detail

// Writing purchase orders: create, import of ship notices, amendments. Each is one transaction
// and all-or-nothing: every check runs before the first write that could be left behind.
#include "inventory/purchase_orders.hpp"

#include <algorithm>

#include "po_internal.hpp"
#include "queries_purchase_orders.hpp"
#include "values.hpp"

namespace inventory {
namespace {

using detail::Tx;
using detail::UnitList;

constexpr std::string_view kStatuses[] = {"open", "closed", "cancelled"};

common::Result<PurchaseOrderSpec> checkSpec(const PurchaseOrderSpec& input) {
  if (input.po_number.empty()) {
    return common::invalidArgument("missing_field", "po_number is required", "po_number");
  }
  if (input.vendor.empty()) {
    return common::invalidArgument("missing_field", "vendor is required", "vendor");
  }
  PROV_TRY(detail::validateLineItems(input.line_items, "line_items"));
  auto units = detail::normaliseUnits(input.assets, "assets", false);
  if (!units) return common::fail(std::move(units).error());
  PurchaseOrderSpec spec = input;
  spec.assets = std::move(units).value();
  PROV_TRY(detail::checkRequestDuplicates({UnitList{spec.assets, "assets"}}));
  return spec;
}

// Adds lines and units to a PO (new or existing) after checking them against what is stored.
common::Result<void> addToPo(Tx& tx, const common::SecretBox& box, Id po_id, bool po_is_new,
                             const std::vector<LineItem>& lines, std::string_view lines_name,
                             const std::vector<ExpectedAssetSpec>& units,
                             std::string_view units_name) {
  PROV_TRY(detail::checkLineNumbers(tx, po_is_new ? 0 : po_id, lines, lines_name));
  PROV_TRY(detail::checkStoredDuplicates(tx, UnitList{units, units_name}));
  detail::insertLineItems(tx, po_id, lines);
  return detail::insertUnits(tx, box, po_id, units);
}

common::Result<PurchaseOrder> createOrImport(Database& db, const common::SecretBox& box,
                                             const PurchaseOrderSpec& input, bool import) {
  auto checked = checkSpec(input);
  if (!checked) return common::fail(std::move(checked).error());
  const PurchaseOrderSpec& spec = *checked;
  const char* operation = import ? "import_ship_notice" : "create_purchase_order";
  return detail::withTransaction(db, operation, [&](Tx& tx) -> common::Result<PurchaseOrder> {
    auto existing = tx.exec(detail::kSelectPoIdForUpdate, spec.po_number);
    bool is_new = existing.empty();
    if (!is_new && !import) {
      return common::conflict("duplicate_po",
                              "purchase order " + spec.po_number + " already exists", "po_number");
    }
    if (!is_new && spec.vendor != existing[0][1].c_str()) {
      return common::conflict("po_vendor_mismatch",
                              "purchase order " + spec.po_number + " is from " +
                                  existing[0][1].c_str() + ", not " + spec.vendor,
                              "vendor");
    }
    Id po_id = is_new ? detail::id(tx.exec(detail::kInsertPo, spec.po_number, spec.vendor)[0][0])
                      : detail::id(existing[0][0]);
    PROV_TRY(addToPo(tx, box, po_id, is_new, spec.line_items, "line_items", spec.assets, "assets"));
    if (!is_new)
      tx.exec(detail::kUpdatePo, po_id, std::optional<std::string>(), std::optional<std::string>());
    return detail::readPurchaseOrder(tx, spec.po_number);
  });
}

// Applies one unit update (non-empty fields replace stored ones) to the locked stored row.
common::Result<void> updateUnit(Tx& tx, const common::SecretBox& box, Id po_id,
                                const ExpectedAssetSpec& u, const std::string& field) {
  auto rows = tx.exec(detail::kSelectExpectedAssetForUpdate, po_id, u.chassis_serial);
  if (rows.empty()) {
    return std::move(common::notFound("asset_not_found", "chassis serial " + u.chassis_serial +
                                                             " is not on this purchase order"))
        .withField(field);
  }
  const auto& row = rows[0];
  std::optional<std::string> sealed;
  if (!row[4].is_null()) sealed = row[4].c_str();
  if (!u.factory_password.empty()) {
    auto s = box.seal(u.factory_password);
    if (!s) return common::fail(std::move(s).error());
    sealed = std::move(s).value();
  }
  auto pick = [](const std::string& next, const char* stored) {
    return next.empty() ? std::string(stored) : next;
  };
  tx.exec(detail::kUpdateExpectedAsset, detail::id(row[0]), pick(u.model, row[1].c_str()),
          detail::nullIfEmpty(pick(u.bmc_mac, row[2].c_str())),
          pick(u.factory_username, row[3].c_str()), sealed,
          u.gpu_count ? u.gpu_count : detail::optInt(row[5]), pick(u.rack, row[6].c_str()),
          u.u_position ? u.u_position : detail::optInt(row[7]),
          u.line_no ? u.line_no : detail::optInt(row[8]));
  return common::success();
}

common::Result<void> checkAmendment(const PurchaseOrderAmendment& a) {
  if (a.vendor && a.vendor->empty()) {
    return common::invalidArgument("invalid_field", "vendor must not be empty", "vendor");
  }
  if (a.status &&
      std::find(std::begin(kStatuses), std::end(kStatuses), *a.status) == std::end(kStatuses)) {
    return common::invalidArgument("invalid_status", "status must be open, closed or cancelled",
                                   "status");
  }
  for (std::size_t i = 0; i < a.remove_serials.size(); ++i) {
    if (a.remove_serials[i].empty()) {
      return common::invalidArgument("missing_field", "serial is required",
                                     "remove_serials[" + std::to_string(i) + "]");
    }
  }
  return detail::validateLineItems(a.add_line_items, "add_line_items");
}

}  // namespace

common::Result<PurchaseOrder> createPurchaseOrder(Database& db, const common::SecretBox& box,
                                                  const PurchaseOrderSpec& spec) {
  return createOrImport(db, box, spec, false);
}

common::Result<PurchaseOrder> importShipNotice(Database& db, const common::SecretBox& box,
                                               const PurchaseOrderSpec& spec) {
  return createOrImport(db, box, spec, true);
}

common::Result<PurchaseOrder> amendPurchaseOrder(Database& db, const common::SecretBox& box,
                                                 const std::string& po_number,
                                                 const PurchaseOrderAmendment& amendment) {
  PROV_TRY(checkAmendment(amendment));
  auto adds = detail::normaliseUnits(amendment.add_assets, "add_assets", false);
  if (!adds) return common::fail(std::move(adds).error());
  auto updates = detail::normaliseUnits(amendment.update_assets, "update_assets", true);
  if (!updates) return common::fail(std::move(updates).error());
  UnitList add_list{*adds, "add_assets"};
  UnitList update_list{*updates, "update_assets", true};
  PROV_TRY(detail::checkRequestDuplicates({update_list, add_list}));

  return detail::withTransaction(
      db, "amend_purchase_order", [&](Tx& tx) -> common::Result<PurchaseOrder> {
        auto existing = tx.exec(detail::kSelectPoIdForUpdate, po_number);
        if (existing.empty()) return detail::poNotFound(po_number);
        Id po_id = detail::id(existing[0][0]);
        // Removals first, so a removed unit's serial or MAC may be reused by the additions.
        for (std::size_t i = 0; i < amendment.remove_serials.size(); ++i) {
          const std::string& serial = amendment.remove_serials[i];
          if (tx.exec(detail::kDeleteExpectedAsset, po_id, serial).affected_rows() == 0) {
            return std::move(common::notFound("asset_not_found", "chassis serial " + serial +
                                                                     " is not on " + po_number))
                .withField("remove_serials[" + std::to_string(i) + "]");
          }
        }
        PROV_TRY(detail::checkStoredDuplicates(tx, update_list));
        for (std::size_t i = 0; i < updates->size(); ++i) {
          const auto& u = (*updates)[i];
          PROV_TRY(updateUnit(tx, box, po_id, u,
                              detail::unitField(u, i, "update_assets", "chassis_serial")));
        }
        PROV_TRY(addToPo(tx, box, po_id, false, amendment.add_line_items, "add_line_items", *adds,
                         "add_assets"));
        tx.exec(detail::kUpdatePo, po_id, amendment.vendor, amendment.status);
        return detail::readPurchaseOrder(tx, po_number);
      });
}

}  // namespace inventory

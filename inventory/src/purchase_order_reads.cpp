// Reading purchase orders, and the one place factory passwords are decrypted.
#include "po_internal.hpp"
#include "queries_purchase_orders.hpp"
#include "values.hpp"

namespace inventory {
namespace detail {
namespace {

PurchaseOrderSummary summaryFromRow(const pqxx::row& row) {
  PurchaseOrderSummary s;
  s.id = id(row[0]);
  s.po_number = row[1].c_str();
  s.vendor = row[2].c_str();
  s.status = row[3].c_str();
  s.asset_count = row[4].as<int>();
  s.created_at = row[5].c_str();
  s.updated_at = row[6].c_str();
  return s;
}

ExpectedAsset assetFromRow(const pqxx::row& row) {
  ExpectedAsset a;
  a.id = id(row[0]);
  a.chassis_serial = row[1].c_str();
  a.model = row[2].c_str();
  a.bmc_mac = row[3].c_str();
  a.factory_username = row[4].c_str();
  a.has_factory_password = row[5].as<bool>();
  a.gpu_count = optInt(row[6]);
  a.rack = row[7].c_str();
  a.u_position = optInt(row[8]);
  a.line_no = optInt(row[9]);
  return a;
}

}  // namespace

common::Error poNotFound(const std::string& po_number) {
  return common::notFound("po_not_found", "no purchase order " + po_number);
}

common::Result<PurchaseOrder> readPurchaseOrder(Tx& tx, const std::string& po_number) {
  auto rows = tx.exec(kSelectPoSummary, po_number);
  if (rows.empty()) return poNotFound(po_number);
  PurchaseOrder po;
  po.summary = summaryFromRow(rows[0]);
  for (const auto& row : tx.exec(kSelectLineItems, po.summary.id)) {
    po.line_items.push_back(LineItem{row[0].as<int>(), row[1].c_str(), row[2].as<int>(),
                                     optInt(row[3]), row[4].c_str()});
  }
  for (const auto& row : tx.exec(kSelectExpectedAssets, po.summary.id)) {
    po.assets.push_back(assetFromRow(row));
  }
  return po;
}

}  // namespace detail

common::Result<PurchaseOrder> getPurchaseOrder(Database& db, const std::string& po_number) {
  // A transaction, so the summary, lines and units come from one snapshot.
  return detail::withTransaction(db, "get_purchase_order", [&](detail::Tx& tx) {
    return detail::readPurchaseOrder(tx, po_number);
  });
}

common::Result<Page<PurchaseOrderSummary>> listPurchaseOrders(Database& db, PageRequest page) {
  int limit = detail::clampLimit(page.limit);
  return detail::withRead(
      db, "list_purchase_orders",
      [&](detail::Tx& tx) -> common::Result<Page<PurchaseOrderSummary>> {
        std::vector<PurchaseOrderSummary> items;
        for (const auto& row : tx.exec(detail::kSelectPoPage, page.after, limit + 1)) {
          items.push_back(detail::summaryFromRow(row));
        }
        return detail::makePage(std::move(items), limit);
      });
}

common::Result<FactoryCredentials> factoryCredentials(Database& db, const common::SecretBox& box,
                                                      const std::string& chassis_serial) {
  return detail::withRead(
      db, "factory_credentials", [&](detail::Tx& tx) -> common::Result<FactoryCredentials> {
        auto rows = tx.exec(detail::kSelectFactoryCredentials, chassis_serial);
        if (rows.empty()) {
          return common::notFound("asset_not_found",
                                  "chassis serial " + chassis_serial + " is on no purchase order");
        }
        if (rows[0][1].is_null()) {
          return common::notFound("factory_credentials_not_found",
                                  "no factory password was given for " + chassis_serial);
        }
        auto password = box.open(rows[0][1].c_str());
        if (!password) return common::fail(std::move(password).error());
        return FactoryCredentials{rows[0][0].c_str(), std::move(password).value()};
      });
}

}  // namespace inventory

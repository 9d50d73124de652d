// SQL of purchase orders, line items and expected assets.
#pragma once

#include "db.hpp"

namespace inventory::detail {

constexpr Query kSelectPoIdForUpdate{
    "select_po_id_for_update",
    "SELECT id, vendor FROM purchase_orders WHERE po_number = $1 FOR UPDATE"};
constexpr Query kInsertPo{"insert_po",
                          "INSERT INTO purchase_orders (po_number, vendor) VALUES ($1, $2) "
                          "RETURNING id"};
constexpr Query kUpdatePo{"update_po", R"(
  UPDATE purchase_orders
     SET vendor = coalesce($2, vendor), status = coalesce($3, status), updated_at = now()
   WHERE id = $1)"};
constexpr Query kSelectLineNos{"select_line_nos",
                               "SELECT line_no FROM po_line_items WHERE po_id = $1"};
constexpr Query kInsertLineItem{"insert_line_item", R"(
  INSERT INTO po_line_items (po_id, line_no, model, quantity, gpu_count, description)
  VALUES ($1, $2, $3, $4, $5, $6))"};
constexpr Query kInsertExpectedAsset{"insert_expected_asset", R"(
  INSERT INTO expected_assets (po_id, chassis_serial, bmc_mac, model, gpu_count, rack, u_position,
                               line_no, factory_username, factory_password_sealed)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10))"};
// Units already on any PO whose serial or MAC is in the request ($1, $2: text[] literals).
constexpr Query kSelectAssetConflicts{"select_asset_conflicts", R"(
  SELECT e.chassis_serial, coalesce(e.bmc_mac, ''), po.po_number
    FROM expected_assets e JOIN purchase_orders po ON po.id = e.po_id
   WHERE e.chassis_serial = ANY($1::text[]) OR e.bmc_mac = ANY($2::text[]))"};
constexpr Query kDeleteExpectedAsset{
    "delete_expected_asset",
    "DELETE FROM expected_assets WHERE po_id = $1 AND chassis_serial = $2"};
constexpr Query kSelectExpectedAssetForUpdate{"select_expected_asset_for_update", R"(
  SELECT id, model, coalesce(bmc_mac, ''), factory_username, factory_password_sealed, gpu_count,
         rack, u_position, line_no
    FROM expected_assets WHERE po_id = $1 AND chassis_serial = $2 FOR UPDATE)"};
constexpr Query kUpdateExpectedAsset{"update_expected_asset", R"(
  UPDATE expected_assets
     SET model = $2, bmc_mac = $3, factory_username = $4, factory_password_sealed = $5,
         gpu_count = $6, rack = $7, u_position = $8, line_no = $9, updated_at = now()
   WHERE id = $1)"};

#define INVENTORY_PO_SUMMARY_COLUMNS                                          \
  "po.id, po.po_number, po.vendor, po.status,"                                \
  " (SELECT count(*)::integer FROM expected_assets e WHERE e.po_id = po.id)," \
  " iso8601(po.created_at), iso8601(po.updated_at)"

constexpr Query kSelectPoSummary{"select_po_summary",
                                 "SELECT " INVENTORY_PO_SUMMARY_COLUMNS
                                 " FROM purchase_orders po WHERE po.po_number = $1"};
constexpr Query kSelectPoPage{"select_po_page", "SELECT " INVENTORY_PO_SUMMARY_COLUMNS
                                                " FROM purchase_orders po WHERE po.id > $1::bigint"
                                                " ORDER BY po.id LIMIT $2"};

#undef INVENTORY_PO_SUMMARY_COLUMNS

constexpr Query kSelectLineItems{"select_line_items", R"(
  SELECT line_no, model, quantity, gpu_count, description
    FROM po_line_items WHERE po_id = $1 ORDER BY line_no)"};
constexpr Query kSelectExpectedAssets{"select_expected_assets", R"(
  SELECT id, chassis_serial, model, coalesce(bmc_mac, ''), factory_username,
         factory_password_sealed IS NOT NULL, gpu_count, rack, u_position, line_no
    FROM expected_assets WHERE po_id = $1 ORDER BY id)"};
constexpr Query kSelectFactoryCredentials{
    "select_factory_credentials",
    "SELECT factory_username, factory_password_sealed FROM expected_assets "
    "WHERE chassis_serial = $1"};

}  // namespace inventory::detail

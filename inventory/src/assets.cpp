// lookupAsset: one serial, wherever it is, in at most three statements.
#include "inventory/assets.hpp"

#include "db.hpp"
#include "node_rows.hpp"
#include "queries_assets.hpp"
#include "queries_nodes.hpp"

namespace inventory {
namespace {

using detail::Tx;

Asset assetFromRow(const std::string& serial, const pqxx::row& row) {
  Asset a;
  a.serial = serial;
  a.asset_type = row["asset_type"].c_str();
  a.kind = row["kind"].c_str();
  a.manufacturer = row["manufacturer"].c_str();
  a.model = row["model"].c_str();
  a.part_number = row["part_number"].c_str();
  a.state = row["state"].c_str();
  a.firmware_version = row["firmware_version"].c_str();
  a.location.site = detail::text(row["site"]);
  a.location.room = detail::text(row["room"]);
  a.location.row = detail::text(row["row_name"]);
  a.location.rack = detail::text(row["rack"]);
  a.location.u_position = detail::optInt(row["u_position"]);
  a.location.node_id = detail::optId(row["node_id"]);
  a.location.node_serial = detail::text(row["node_serial"]);
  a.location.slot = detail::text(row["slot"]);
  a.po_number = detail::text(row["po_number"]);
  return a;
}

std::vector<AssetHistoryEntry> historyFromRows(const pqxx::result& rows) {
  std::vector<AssetHistoryEntry> history;
  for (const auto& row : rows) {
    AssetHistoryEntry h;
    h.at = row[0].c_str();
    h.event = row[1].c_str();
    h.node_id = detail::optId(row[2]);
    h.node_serial = detail::text(row[3]);
    h.slot = detail::text(row[4]);
    h.from_version = detail::text(row[5]);
    h.to_version = detail::text(row[6]);
    h.reason = detail::text(row[7]);
    history.push_back(std::move(h));
  }
  return history;
}

}  // namespace

common::Result<Asset> lookupAsset(Database& db, const std::string& serial) {
  if (serial.empty())
    return common::invalidArgument("missing_field", "serial is required", "serial");
  // No BEGIN/COMMIT: this is the hot read path, and each statement reads committed rows.
  return detail::withRead(db, "lookup_asset", [&](Tx& tx) -> common::Result<Asset> {
    auto found = tx.exec(detail::kLookupAsset, serial);
    if (found.empty()) {
      return common::notFound("asset_not_found", "serial " + serial + " is not in the inventory");
    }
    const auto& row = found[0];
    Asset asset = assetFromRow(serial, row);
    Id ref = detail::id(row["ref_id"]);
    if (asset.asset_type == "node") {
      asset.history = historyFromRows(tx.exec(detail::kNodeHistory, ref));
      for (const auto& c : tx.exec(detail::kSelectNodeComponents, ref)) {
        asset.components.push_back(detail::componentFromRow(c));
      }
    } else if (asset.asset_type == "component") {
      asset.history = historyFromRows(tx.exec(detail::kComponentHistory, ref));
    } else {
      AssetHistoryEntry ordered;
      ordered.at = row["ordered_at"].c_str();
      ordered.event = "ordered";
      ordered.reason = asset.po_number;
      asset.history.push_back(std::move(ordered));
    }
    return asset;
  });
}

}  // namespace inventory

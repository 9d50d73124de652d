// lookupAsset: one serial, wherever it is, in one statement.
#include "inventory/assets.hpp"

#include <algorithm>
#include <cstring>
#include <string_view>

#include "db.hpp"
#include "queries_assets.hpp"

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

// A history entry and its sort key: time, then a removal before the installation it made room for
// (same transaction), then placements before firmware, then row id.
struct Ranked {
  AssetHistoryEntry entry;
  int ord;
  Id seq;
};

AssetHistoryEntry entry(const std::string& at, const char* event, const pqxx::row& row) {
  AssetHistoryEntry h;
  h.at = at;
  h.event = event;
  h.node_id = detail::optId(row["node_id"]);
  h.node_serial = detail::text(row["node_serial"]);
  h.slot = detail::text(row["slot"]);
  return h;
}

// Times are iso8601() text of fixed width for years 1-9999; a longer text is a later year.
bool earlier(const Ranked& x, const Ranked& y) {
  const std::string& a = x.entry.at;
  const std::string& b = y.entry.at;
  if (a.size() != b.size()) return a.size() < b.size();
  if (int c = a.compare(b); c != 0) return c < 0;
  return x.ord != y.ord ? x.ord < y.ord : x.seq < y.seq;
}

// Firmware rows become changes from the version recorded before (by id); the first record of a
// component is where it started, not a change.
void addFirmwareChanges(std::vector<pqxx::row>& records, std::vector<Ranked>& out) {
  auto byId = [](const pqxx::row& x, const pqxx::row& y) {
    return detail::id(x["ref_id"]) < detail::id(y["ref_id"]);
  };
  std::sort(records.begin(), records.end(), byId);
  for (std::size_t i = 1; i < records.size(); ++i) {
    const pqxx::row& r = records[i];
    AssetHistoryEntry h = entry(r["ordered_at"].c_str(), "firmware_changed", r);
    h.from_version = records[i - 1]["firmware_version"].c_str();
    h.to_version = r["firmware_version"].c_str();
    out.push_back({std::move(h), 2, detail::id(r["ref_id"])});
  }
}

// Builds the asset from kLookupAsset's rows (see the column map there).
Asset assetFromRows(const std::string& serial, const pqxx::result& rows) {
  // Exactly one row is the asset's. Rows are copied, never pointed to: a range-for over a result
  // yields its iterator, which moves on.
  pqxx::result::size_type at = 0;
  while (std::strcmp(rows[at]["tag"].c_str(), "asset") != 0) ++at;
  const pqxx::row head = rows[at];
  Asset asset = assetFromRow(serial, head);
  std::vector<Ranked> history;
  // A unit on order, or a node that was, starts its history with the purchase order.
  if (!head["ordered_at"].is_null()) {
    AssetHistoryEntry ordered;
    ordered.at = head["ordered_at"].c_str();
    ordered.event = "ordered";
    ordered.reason = asset.po_number;
    history.push_back({std::move(ordered), 0, 0});
  }
  std::vector<pqxx::row> firmware;
  for (const auto& row : rows) {
    std::string_view tag = row["tag"].c_str();
    Id ref = detail::id(row["ref_id"]);
    if (tag == "event") {
      AssetHistoryEntry h = entry(row["ordered_at"].c_str(), row["kind"].c_str(), row);
      h.node_serial = asset.location.node_serial;  // the node's own chassis serial
      h.reason = detail::text(row["po_number"]);
      history.push_back({std::move(h), 1, ref});
    } else if (tag == "component") {
      Component c;
      c.id = ref;
      c.kind = row["kind"].c_str();
      c.slot = detail::text(row["slot"]);
      c.manufacturer = row["manufacturer"].c_str();
      c.model = row["model"].c_str();
      c.part_number = row["part_number"].c_str();
      c.serial = row["state"].c_str();
      c.firmware_version = row["firmware_version"].c_str();
      c.installed_at = detail::text(row["ordered_at"]);
      asset.components.push_back(std::move(c));
    } else if (tag == "placement") {
      history.push_back({entry(row["ordered_at"].c_str(), "installed", row), 1, ref});
      if (!row["rack"].is_null()) {
        AssetHistoryEntry removed = entry(row["rack"].c_str(), "removed", row);
        removed.reason = detail::text(row["po_number"]);
        history.push_back({std::move(removed), 0, ref});
      }
    } else if (tag == "firmware") {
      firmware.push_back(row);
    }
  }
  addFirmwareChanges(firmware, history);
  std::sort(history.begin(), history.end(), earlier);
  for (auto& h : history) asset.history.push_back(std::move(h.entry));
  return asset;
}

}  // namespace

common::Result<Asset> lookupAsset(Database& db, const std::string& serial) {
  if (serial.empty())
    return common::invalidArgument("missing_field", "serial is required", "serial");
  // No BEGIN/COMMIT: this is the hot read path, and its one statement reads one snapshot.
  return detail::withRead(db, "lookup_asset", [&](Tx& tx) -> common::Result<Asset> {
    auto found = tx.exec(detail::kLookupAsset, serial);
    if (found.empty()) {
      return common::notFound("asset_not_found", "serial " + serial + " is not in the inventory");
    }
    return assetFromRows(serial, found);
  });
}

}  // namespace inventory

#include "inventory/sites.hpp"

#include "db.hpp"
#include "queries_sites.hpp"
#include "values.hpp"

namespace inventory {
namespace {

using detail::Tx;

constexpr int kMaxRackHeight = 100;

Rack rackFromRow(const pqxx::row& row) {
  Rack r;
  r.id = detail::id(row[0]);
  r.site = row[1].c_str();
  r.room = row[2].c_str();
  r.row = row[3].c_str();
  r.name = row[4].c_str();
  r.u_height = row[5].as<int>();
  r.node_count = row[6].as<int>();
  r.created_at = row[7].c_str();
  return r;
}

common::Result<void> validateRack(const RackSpec& spec) {
  if (spec.site.empty())
    return common::invalidArgument("missing_field", "site is required", "site");
  if (spec.name.empty())
    return common::invalidArgument("missing_field", "name is required", "name");
  if (!spec.row.empty() && spec.room.empty()) {
    return common::invalidArgument("missing_field", "a row needs its room", "room");
  }
  if (spec.u_height < 1 || spec.u_height > kMaxRackHeight) {
    return common::invalidArgument("invalid_u_height", "u_height must be between 1 and 100",
                                   "u_height");
  }
  return common::success();
}

}  // namespace

common::Result<Site> createSite(Database& db, const std::string& name,
                                const std::string& description) {
  if (name.empty()) return common::invalidArgument("missing_field", "name is required", "name");
  return detail::withTransaction(db, "create_site", [&](Tx& tx) -> common::Result<Site> {
    auto row = tx.exec(detail::kInsertSite, name, description)[0];
    return Site{detail::id(row[0]), row[1].c_str(), row[2].c_str(), row[3].c_str()};
  });
}

common::Result<std::vector<Site>> listSites(Database& db) {
  return detail::withRead(db, "list_sites", [&](Tx& tx) -> common::Result<std::vector<Site>> {
    std::vector<Site> sites;
    for (const auto& row : tx.exec(detail::kSelectSites)) {
      sites.push_back(Site{detail::id(row[0]), row[1].c_str(), row[2].c_str(), row[3].c_str()});
    }
    return sites;
  });
}

common::Result<Rack> createRack(Database& db, const RackSpec& spec) {
  PROV_TRY(validateRack(spec));
  return detail::withTransaction(db, "create_rack", [&](Tx& tx) -> common::Result<Rack> {
    auto site = tx.exec(detail::kSelectSiteIdByName, spec.site);
    if (site.empty()) {
      return common::notFound("site_not_found", "no site named " + spec.site);
    }
    Id site_id = detail::id(site[0][0]);
    std::optional<Id> room_id;
    std::optional<Id> row_id;
    if (!spec.room.empty())
      room_id = detail::id(tx.exec(detail::kUpsertRoom, site_id, spec.room)[0][0]);
    if (!spec.row.empty())
      row_id = detail::id(tx.exec(detail::kUpsertRow, room_id, spec.row)[0][0]);
    Id rack_id = detail::id(
        tx.exec(detail::kInsertRack, site_id, room_id, row_id, spec.name, spec.u_height)[0][0]);
    return rackFromRow(tx.exec(detail::kSelectRackById, rack_id)[0]);
  });
}

common::Result<Rack> getRack(Database& db, Id id) {
  return detail::withRead(db, "get_rack", [&](Tx& tx) -> common::Result<Rack> {
    auto rows = tx.exec(detail::kSelectRackById, id);
    if (rows.empty()) return common::notFound("rack_not_found", "no rack with this id");
    return rackFromRow(rows[0]);
  });
}

common::Result<Page<Rack>> listRacks(Database& db, const std::string& site, PageRequest page) {
  int limit = detail::clampLimit(page.limit);
  return detail::withRead(db, "list_racks", [&](Tx& tx) -> common::Result<Page<Rack>> {
    std::vector<Rack> racks;
    for (const auto& row : tx.exec(detail::kSelectRackPage, site, page.after, limit + 1)) {
      racks.push_back(rackFromRow(row));
    }
    return detail::makePage(std::move(racks), limit);
  });
}

}  // namespace inventory

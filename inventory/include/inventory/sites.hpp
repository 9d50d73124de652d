// Sites, rooms, rows and racks: where hardware stands.
#pragma once

#include "common/result.hpp"
#include "inventory/database.hpp"
#include "inventory/types.hpp"

namespace inventory {

common::Result<Site> createSite(Database& db, const std::string& name,
                                const std::string& description);
common::Result<std::vector<Site>> listSites(Database& db);

// Creates the rack (and its room/row when named and new). Unknown site: NotFound "site_not_found".
// Duplicate name in the site: Conflict "duplicate_rack".
common::Result<Rack> createRack(Database& db, const RackSpec& spec);
common::Result<Rack> getRack(Database& db, Id id);
// Racks of a site (all sites when `site` is empty), by id.
common::Result<Page<Rack>> listRacks(Database& db, const std::string& site, PageRequest page);

}  // namespace inventory

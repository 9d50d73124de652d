// SQL of sites, rooms, rows and racks.
#pragma once

#include "db.hpp"

namespace inventory::detail {

constexpr Query kInsertSite{"insert_site",
                            "INSERT INTO sites (name, description) VALUES ($1, $2) "
                            "RETURNING id, name, description, iso8601(created_at)"};
constexpr Query kSelectSites{"select_sites",
                             "SELECT id, name, description, iso8601(created_at) FROM sites "
                             "ORDER BY id"};
constexpr Query kSelectSiteIdByName{"select_site_id_by_name",
                                    "SELECT id FROM sites WHERE name = $1"};

// Rooms and rows are created on first use; the no-op update makes RETURNING give the id of an
// existing row too.
constexpr Query kUpsertRoom{"upsert_room",
                            "INSERT INTO rooms (site_id, name) VALUES ($1, $2) "
                            "ON CONFLICT (site_id, name) DO UPDATE SET name = EXCLUDED.name "
                            "RETURNING id"};
constexpr Query kUpsertRow{"upsert_row",
                           "INSERT INTO rows (room_id, name) VALUES ($1, $2) "
                           "ON CONFLICT (room_id, name) DO UPDATE SET name = EXCLUDED.name "
                           "RETURNING id"};
constexpr Query kInsertRack{"insert_rack",
                            "INSERT INTO racks (site_id, room_id, row_id, name, u_height) "
                            "VALUES ($1, $2, $3, $4, $5) RETURNING id"};

#define INVENTORY_RACK_COLUMNS \
  "id, site, room, row_name, name, u_height, node_count, iso8601(created_at)"

constexpr Query kSelectRackById{
    "select_rack_by_id", "SELECT " INVENTORY_RACK_COLUMNS " FROM rack_summary WHERE id = $1"};
constexpr Query kSelectRackPage{"select_rack_page",
                                "SELECT " INVENTORY_RACK_COLUMNS
                                " FROM rack_summary "
                                "WHERE ($1 = '' OR site = $1) AND id > $2::bigint "
                                "ORDER BY id LIMIT $3"};

#undef INVENTORY_RACK_COLUMNS

}  // namespace inventory::detail

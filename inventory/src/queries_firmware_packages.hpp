// SQL of firmware packages (0005, 0009). Column list shared with packageFromRow().
#pragma once

#include "db.hpp"

#define INVENTORY_PACKAGE_COLUMNS                                                             \
  "id, name, version, vendor, models::text, component, match::text, sha256, size,"            \
  " install_method, apply, min_from_version, allow_downgrade, estimated_seconds, created_by," \
  " iso8601(created_at), simple_update_fallback"

namespace inventory::detail {

// ON CONFLICT DO NOTHING: an existing name and version is compared by the caller.
constexpr Query kInsertPackage{"insert_firmware_package",
                               "INSERT INTO firmware_packages (name, version, vendor, models,"
                               " component, match, sha256, size, install_method, apply,"
                               " min_from_version, allow_downgrade, estimated_seconds, created_by,"
                               " simple_update_fallback)"
                               " VALUES ($1, $2, $3, $4::jsonb, $5, $6::jsonb, $7, $8, $9, $10,"
                               " $11, $12, $13, $14, $15)"
                               " ON CONFLICT ON CONSTRAINT firmware_packages_name_version_key"
                               " DO NOTHING RETURNING " INVENTORY_PACKAGE_COLUMNS};
constexpr Query kSelectPackage{"select_firmware_package",
                               "SELECT " INVENTORY_PACKAGE_COLUMNS
                               " FROM firmware_packages WHERE name = $1 AND version = $2"};
constexpr Query kSelectPackagePage{"select_firmware_package_page",
                                   "SELECT " INVENTORY_PACKAGE_COLUMNS
                                   " FROM firmware_packages"
                                   " WHERE ($1 = '' OR name = $1) AND ($2 = '' OR component = $2)"
                                   " AND ($3 = '' OR models = '[]'::jsonb OR models ? $3)"
                                   " AND id > $4::bigint ORDER BY id LIMIT $5"};

}  // namespace inventory::detail

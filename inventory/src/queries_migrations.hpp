// SQL of the migration runner. It runs on its own connection, outside the pool.
#pragma once

#include "db.hpp"

namespace inventory::detail {

// Any fixed 64-bit number works; this one is "prov.mig" in ASCII, unlikely to collide.
inline constexpr long long kMigrationLockKey = 0x70726f762e6d6967LL;

constexpr Query kLockMigrations{"lock_migrations", "SELECT pg_advisory_lock($1)"};
constexpr Query kUnlockMigrations{"unlock_migrations", "SELECT pg_advisory_unlock($1)"};
constexpr Query kCreateSchemaMigrations{"create_schema_migrations", R"(
  CREATE TABLE IF NOT EXISTS schema_migrations (
    version    integer PRIMARY KEY,
    name       text NOT NULL,
    checksum   text NOT NULL,
    applied_at timestamptz NOT NULL DEFAULT now()))"};
constexpr Query kSchemaMigrationsExists{"schema_migrations_exists",
                                        "SELECT to_regclass('schema_migrations') IS NOT NULL"};
constexpr Query kSelectAppliedMigrations{"select_applied_migrations",
                                         "SELECT version, name, checksum FROM schema_migrations"};
constexpr Query kInsertMigration{
    "insert_migration",
    "INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, $2, $3)"};

}  // namespace inventory::detail

// Numbered SQL migrations (migrations/NNNN_name.sql): loading, checksums, applying exactly once.
#pragma once

#include <string>
#include <vector>

#include "common/result.hpp"

namespace inventory {

struct MigrationFile {
  int version = 0;   // NNNN
  std::string name;  // "inventory_v1"
  std::string sql;
  std::string checksum;  // SHA-256 hex of the file's bytes
};

struct MigrationReport {
  std::vector<int> applied;          // applied by this call
  std::vector<int> already_applied;  // found recorded with a matching checksum
};

// Reads every NNNN_name.sql in `dir`, ordered by version. Duplicate versions, gaps are refused.
common::Result<std::vector<MigrationFile>> loadMigrations(const std::string& dir);

// Applies the pending migrations in order, each in its own transaction, recorded in
// schema_migrations. Holds a PostgreSQL advisory lock so concurrent callers apply each file once.
// A recorded migration whose file changed is refused (code "migration_checksum_mismatch").
common::Result<MigrationReport> applyMigrations(const std::string& database_url,
                                                const std::vector<MigrationFile>& files);

// True when every file is recorded with a matching checksum (used by /readyz).
class Database;
common::Result<bool> migrationsCurrent(Database& db, const std::vector<MigrationFile>& files);

}  // namespace inventory

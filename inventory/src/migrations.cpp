#include "inventory/migrations.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include "common/secret_box.hpp"
#include "db.hpp"
#include "queries_migrations.hpp"

namespace inventory {
namespace {

namespace fs = std::filesystem;
using detail::Query;

struct AppliedMigration {
  std::string name;
  std::string checksum;
};

std::string fileName(const MigrationFile& f) {
  char version[16];
  std::snprintf(version, sizeof version, "%04d", f.version);
  return std::string(version) + "_" + f.name + ".sql";
}

common::Error badFile(std::string code, std::string message, const std::string& file) {
  return common::invalidArgument(std::move(code), std::move(message), file);
}

// The runner's own connection is not pooled, so its statements run unprepared.
template <class... Args>
pqxx::result run(pqxx::transaction_base& tx, const Query& q, Args&&... args) {
  return tx.exec_params(q.sql, std::forward<Args>(args)...);
}

std::map<int, AppliedMigration> readApplied(pqxx::transaction_base& tx) {
  std::map<int, AppliedMigration> applied;
  for (const auto& row : run(tx, detail::kSelectAppliedMigrations)) {
    applied[row[0].as<int>()] = {row[1].c_str(), row[2].c_str()};
  }
  return applied;
}

// Every recorded file must still be the file that was applied; otherwise nothing is applied.
common::Result<void> verifyChecksums(const std::map<int, AppliedMigration>& applied,
                                     const std::vector<MigrationFile>& files) {
  for (const auto& f : files) {
    auto it = applied.find(f.version);
    if (it != applied.end() && it->second.checksum != f.checksum) {
      return common::conflict(
          "migration_checksum_mismatch",
          "migration " + fileName(f) + " was changed after it was applied (checksum differs)",
          fileName(f));
    }
  }
  return common::success();
}

common::Result<MigrationReport> applyLocked(pqxx::connection& conn,
                                            const std::vector<MigrationFile>& files) {
  {
    pqxx::work tx(conn);
    run(tx, detail::kCreateSchemaMigrations);
    tx.commit();
  }
  std::map<int, AppliedMigration> applied;
  {
    pqxx::read_transaction tx(conn);
    applied = readApplied(tx);
  }
  PROV_TRY(verifyChecksums(applied, files));
  MigrationReport report;
  for (const auto& f : files) {
    if (applied.count(f.version) != 0) {
      report.already_applied.push_back(f.version);
      continue;
    }
    try {
      pqxx::work tx(conn);
      tx.exec(f.sql);
      run(tx, detail::kInsertMigration, f.version, f.name, f.checksum);
      tx.commit();
    } catch (const pqxx::sql_error& e) {
      // Migration SQL is ours, not user data: the server's message helps whoever wrote it.
      return common::fail(std::move(common::internalError("migration " + fileName(f) + " failed"))
                              .withDetail(e.what()));
    }
    report.applied.push_back(f.version);
  }
  return report;
}

// Reads every NNNN_name.sql of `dir` into `files`, unordered.
common::Result<void> readMigrationFiles(const std::string& dir, std::vector<MigrationFile>& files) {
  static const std::regex kPattern(R"(^(\d{4})_([a-z0-9_]+)\.sql$)");
  std::error_code ec;
  fs::directory_iterator it(dir, ec);
  if (ec) {
    return badFile("migrations_unreadable", "cannot read the migrations folder " + dir, dir);
  }
  for (const auto& entry : it) {
    std::string name = entry.path().filename().string();
    if (entry.path().extension() != ".sql") continue;  // READMEs and the like
    std::smatch m;
    if (!std::regex_match(name, m, kPattern)) {
      return badFile("invalid_migration_name",
                     "migration file " + name + " is not named NNNN_lower_case_name.sql", name);
    }
    std::ifstream in(entry.path(), std::ios::binary);
    std::stringstream content;
    content << in.rdbuf();
    if (!in) return badFile("migrations_unreadable", "cannot read migration " + name, name);
    MigrationFile f;
    f.version = std::stoi(m[1].str());  // four digits: cannot throw
    f.name = m[2].str();
    f.sql = content.str();
    f.checksum = common::sha256Hex(f.sql);
    files.push_back(std::move(f));
  }
  return common::success();
}

}  // namespace

common::Result<std::vector<MigrationFile>> loadMigrations(const std::string& dir) {
  std::vector<MigrationFile> files;
  try {
    PROV_TRY(readMigrationFiles(dir, files));
  } catch (const std::exception&) {  // the folder changed or vanished while being read
    return badFile("migrations_unreadable", "cannot read the migrations folder " + dir, dir);
  }
  std::sort(files.begin(), files.end(),
            [](const auto& a, const auto& b) { return a.version < b.version; });
  for (std::size_t i = 0; i < files.size(); ++i) {
    if (i > 0 && files[i].version == files[i - 1].version) {
      return badFile("duplicate_migration_version",
                     "migrations " + fileName(files[i - 1]) + " and " + fileName(files[i]) +
                         " share version " + std::to_string(files[i].version),
                     fileName(files[i]));
    }
    if (files[i].version != static_cast<int>(i) + 1) {
      return badFile("migration_version_gap",
                     "migration " + fileName(files[i]) + " should have version " +
                         std::to_string(i + 1) + " (versions start at 0001, without gaps)",
                     fileName(files[i]));
    }
  }
  return files;
}

common::Result<MigrationReport> applyMigrations(const std::string& database_url,
                                                const std::vector<MigrationFile>& files) {
  std::unique_ptr<pqxx::connection> conn;
  try {
    conn = std::make_unique<pqxx::connection>(database_url);
  } catch (const std::exception&) {
    return common::unavailable("database_unavailable", "cannot connect to apply migrations");
  }
  try {
    // A session lock on this dedicated connection: a second process blocks here until the first
    // has applied everything, then finds it all recorded. Closing the connection releases it.
    {
      pqxx::nontransaction tx(*conn);
      run(tx, detail::kLockMigrations, detail::kMigrationLockKey);
    }
    auto report = applyLocked(*conn, files);
    pqxx::nontransaction tx(*conn);
    run(tx, detail::kUnlockMigrations, detail::kMigrationLockKey);
    return report;
  } catch (...) {
    return common::fail(
        detail::translateCurrentException("apply_migrations", detail::Progress{}).error);
  }
}

common::Result<bool> migrationsCurrent(Database& db, const std::vector<MigrationFile>& files) {
  return detail::withRead(
      db, "migrations_current", [&files](detail::Tx& tx) -> common::Result<bool> {
        if (!tx.exec(detail::kSchemaMigrationsExists)[0][0].as<bool>()) return false;
        auto rows = tx.exec(detail::kSelectAppliedMigrations);
        std::map<int, std::string> applied;
        for (const auto& row : rows) applied[row[0].as<int>()] = row[2].c_str();
        return std::all_of(files.begin(), files.end(), [&applied](const MigrationFile& f) {
          auto it = applied.find(f.version);
          return it != applied.end() && it->second == f.checksum;
        });
      });
}

}  // namespace inventory

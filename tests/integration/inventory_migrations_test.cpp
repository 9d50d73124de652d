#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <thread>

#include <unistd.h>

#include "integration/inventory_test_support.hpp"
#include "inventory/migrations.hpp"
#include "support/test_database.hpp"

using namespace inventory;
using inventory_test::count;
using inventory_test::scalar;

namespace {

namespace fs = std::filesystem;

// A private copy of the migrations folder that a test may change.
struct MigrationsCopy {
  fs::path dir;
  MigrationsCopy() {
    static int n = 0;
    dir = fs::temp_directory_path() /
          ("inv-migrations-" + std::to_string(::getpid()) + "-" + std::to_string(n++));
    fs::remove_all(dir);
    fs::create_directories(dir);
    for (const auto& e : fs::directory_iterator(testing::migrationsDir())) {
      fs::copy_file(e.path(), dir / e.path().filename());
    }
  }
  ~MigrationsCopy() { fs::remove_all(dir); }
  void write(const std::string& name, const std::string& text, bool append = false) const {
    std::ofstream out(dir / name, append ? std::ios::app : std::ios::trunc);
    out << text;
  }
};

}  // namespace

TEST_CASE("migrations apply on a fresh database and re-running is a no-op",
          "[integration][inventory][migrations]") {
  std::string url = testing::freshDatabaseUrl();
  auto files = loadMigrations(testing::migrationsDir());
  REQUIRE_OK(files);
  REQUIRE(files->size() >= 1);
  CHECK(files->front().version == 1);
  CHECK(files->front().name == "inventory_v1");
  CHECK(files->front().checksum.size() == 64);

  auto first = applyMigrations(url, *files);
  REQUIRE_OK(first);
  CHECK(first->applied.size() == files->size());
  CHECK(first->already_applied.empty());
  CHECK(count(url, "schema_migrations") == static_cast<long long>(files->size()));
  CHECK(scalar(url, "SELECT checksum FROM schema_migrations WHERE version = 1") ==
        files->front().checksum);
  CHECK(scalar(url, "SELECT to_regclass('expected_assets') IS NOT NULL") == "t");

  auto again = applyMigrations(url, *files);
  REQUIRE_OK(again);
  CHECK(again->applied.empty());
  CHECK(again->already_applied.size() == files->size());
  CHECK(count(url, "schema_migrations") == static_cast<long long>(files->size()));

  auto db = Database::connect(url, 1);
  REQUIRE_OK(db);
  auto current = migrationsCurrent(**db, *files);
  REQUIRE_OK(current);
  CHECK(*current);
}

TEST_CASE("a migration changed after it was applied is refused and nothing more is applied",
          "[integration][inventory][migrations]") {
  std::string url = testing::freshDatabaseUrl();
  MigrationsCopy copy;
  auto original = loadMigrations(copy.dir.string());
  REQUIRE_OK(original);
  REQUIRE_OK(applyMigrations(url, *original));

  std::string next = std::to_string(original->size() + 1);
  std::string next_name = std::string(4 - next.size(), '0') + next + "_extra.sql";
  copy.write(next_name, "CREATE TABLE extra_table (id integer);");
  copy.write("0001_inventory_v1.sql", "\n-- edited after release\n", true);
  auto tampered = loadMigrations(copy.dir.string());
  REQUIRE_OK(tampered);

  auto r = applyMigrations(url, *tampered);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == "migration_checksum_mismatch");
  CHECK(r.error().field == "0001_inventory_v1.sql");
  CHECK(r.error().message.find("0001_inventory_v1.sql") != std::string::npos);
  CHECK(scalar(url, "SELECT to_regclass('extra_table') IS NULL") == "t");
  CHECK(count(url, "schema_migrations") == static_cast<long long>(original->size()));

  auto db = Database::connect(url, 1);
  REQUIRE_OK(db);
  auto current = migrationsCurrent(**db, *tampered);
  REQUIRE_OK(current);
  CHECK_FALSE(*current);
}

TEST_CASE("migration files with bad names, duplicate versions or gaps are refused",
          "[integration][inventory][migrations]") {
  SECTION("bad name") {
    MigrationsCopy copy;
    copy.write("2_NoPadding.sql", "SELECT 1;");
    auto r = loadMigrations(copy.dir.string());
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == "invalid_migration_name");
    CHECK(r.error().field == "2_NoPadding.sql");
  }
  SECTION("duplicate version") {
    MigrationsCopy copy;
    copy.write("0001_other.sql", "SELECT 1;");
    auto r = loadMigrations(copy.dir.string());
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == "duplicate_migration_version");
  }
  SECTION("gap") {
    MigrationsCopy copy;
    copy.write("0999_far_ahead.sql", "SELECT 1;");
    auto r = loadMigrations(copy.dir.string());
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == "migration_version_gap");
    CHECK(r.error().field == "0999_far_ahead.sql");
  }
  SECTION("missing folder") {
    auto r = loadMigrations("/nonexistent/migrations");
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == "migrations_unreadable");
  }
}

TEST_CASE("two processes applying at once apply each migration exactly once",
          "[integration][inventory][migrations]") {
  std::string url = testing::freshDatabaseUrl();
  auto files = loadMigrations(testing::migrationsDir());
  REQUIRE_OK(files);
  std::optional<common::Result<MigrationReport>> a;
  std::optional<common::Result<MigrationReport>> b;
  std::thread ta([&] { a.emplace(applyMigrations(url, *files)); });
  std::thread tb([&] { b.emplace(applyMigrations(url, *files)); });
  ta.join();
  tb.join();
  REQUIRE_OK(*a);
  REQUIRE_OK(*b);
  // Every version is applied by exactly one of the two and found applied by the other.
  for (const auto& f : *files) {
    int applied = 0;
    int found = 0;
    for (const auto* r : {&**a, &**b}) {
      applied += static_cast<int>(std::count(r->applied.begin(), r->applied.end(), f.version));
      found += static_cast<int>(
          std::count(r->already_applied.begin(), r->already_applied.end(), f.version));
    }
    CHECK(applied == 1);
    CHECK(found == 1);
  }
  CHECK(count(url, "schema_migrations") == static_cast<long long>(files->size()));
}

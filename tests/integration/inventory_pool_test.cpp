#include <unistd.h>
#include <catch2/catch.hpp>

#include <atomic>
#include <thread>

#include "integration/inventory_test_support.hpp"
#include "inventory/sites.hpp"
#include "support/test_database.hpp"

using namespace inventory;
using inventory_test::scalar;

namespace {

// Terminates every backend connected to the test database (our pool's connections) and waits
// until they are gone.
long long killBackends(const std::string& url) {
  auto name = scalar(url, "SELECT current_database()");
  // Materialised first, so pg_terminate_backend only ever sees the chosen backends.
  return std::stoll(
      scalar(testing::adminDatabaseUrl(),
             "WITH victims AS MATERIALIZED (SELECT pid FROM pg_stat_activity "
             "WHERE datname = '" +
                 name +
                 "' AND pid <> pg_backend_pid()) "
                 "SELECT count(*) FROM victims WHERE pg_terminate_backend(pid, 10000)"));
}

}  // namespace

TEST_CASE("the pool survives its backends being killed", "[integration][inventory][pool]") {
  auto inv = inventory_test::freshInventory(2);
  auto& db = *inv.db;
  REQUIRE_OK(db.ping());
  REQUIRE_OK(createSite(db, "before", ""));
  CHECK(db.stats().size == 1);

  REQUIRE(killBackends(inv.url) == 1);

  // The dead connection is noticed before use, closed and replaced: callers see no error.
  REQUIRE_OK(db.ping());
  auto site = createSite(db, "after", "");
  REQUIRE_OK(site);
  CHECK(site->name == "after");
  auto stats = db.stats();
  CHECK(stats.size == 1);
  CHECK(stats.in_use == 0);
  CHECK(stats.errors_total == 0);

  REQUIRE(killBackends(inv.url) == 1);
  auto sites = listSites(db);
  REQUIRE_OK(sites);
  CHECK(sites->size() == 2);
}

TEST_CASE("the pool reports an unreachable database as unavailable",
          "[integration][inventory][pool]") {
  auto name = "missing_" + std::to_string(::getpid());
  std::string url = testing::adminDatabaseUrl();
  url = url.substr(0, url.rfind('/') + 1) + name;
  auto db = Database::connect(url, 2);
  REQUIRE_FALSE(db.ok());
  CHECK(db.error().kind == common::ErrorKind::kUnavailable);
  CHECK(db.error().code == "database_unavailable");
}

TEST_CASE("the pool lends connections to many threads and counts them",
          "[integration][inventory][pool]") {
  auto inv = inventory_test::freshInventory(3);
  auto& db = *inv.db;
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < 6; ++t) {
    threads.emplace_back([&db, &failures, t] {
      for (int i = 0; i < 20; ++i) {
        auto r = createSite(db, "site-" + std::to_string(t) + "-" + std::to_string(i), "");
        if (!r.ok()) ++failures;
      }
    });
  }
  for (auto& th : threads) th.join();
  CHECK(failures == 0);
  auto stats = db.stats();
  CHECK(stats.size <= 3);
  CHECK(stats.in_use == 0);
  CHECK(stats.waiting == 0);
  CHECK(stats.acquired_total >= 121);  // the connect probe plus one per call
  CHECK(inventory_test::count(inv.url, "sites") == 120);
}

TEST_CASE("the pool counts the round trips each call makes", "[integration][inventory][pool]") {
  auto inv = inventory_test::freshInventory(1);
  auto& db = *inv.db;
  REQUIRE_OK(db.ping());  // the ping statement is now prepared on the only connection
  const auto before = db.stats().round_trips_total;
  REQUIRE_OK(db.ping());
  CHECK(db.stats().round_trips_total == before + 1);  // a read: the statement alone

  REQUIRE_OK(createSite(db, "first", ""));
  const auto after_first = db.stats().round_trips_total;
  REQUIRE_OK(createSite(db, "second", ""));
  const auto second = db.stats().round_trips_total - after_first;
  // A write: BEGIN, its statements, COMMIT; the first call also prepared its statements.
  CHECK(second >= 3);
  CHECK(after_first - (before + 1) > second);
}

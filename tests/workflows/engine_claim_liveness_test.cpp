// What a claim may do from the replica's liveness lock (engine/claim_liveness.hpp), and the
// lock of a replica started while its database is unreachable.
#include <catch2/catch.hpp>

#include <pqxx/pqxx>

#include "engine/claim_liveness.hpp"
#include "inventory/replica_liveness.hpp"
#include "support/test_database.hpp"

using namespace std::chrono_literals;
using workflows::detail::claimLivenessFor;

TEST_CASE("claims carry the liveness key, wait while it is lost, take over after the grace",
          "[engine][takeover]") {
  const std::chrono::steady_clock::duration grace = 5s;
  // runOnce() callers keep no lock: they claim, stamp no key, take nothing over.
  auto without = claimLivenessFor(false, 7, {}, grace);
  CHECK(without.claim);
  CHECK_FALSE(without.key.has_value());
  CHECK_FALSE(without.take_over);
  // A replica that keeps one and has lost it (PostgreSQL restarting, or down when it started)
  // claims nothing: a run claimed without its key would wait for the lease if it died now.
  auto lost = claimLivenessFor(true, 7, std::chrono::steady_clock::duration::zero(), grace);
  CHECK_FALSE(lost.claim);
  auto fresh = claimLivenessFor(true, 7, 1s, grace);
  CHECK(fresh.claim);
  CHECK(fresh.key == 7);
  CHECK_FALSE(fresh.take_over);  // its own lock just back: others may not have theirs yet
  auto settled = claimLivenessFor(true, 7, 5s, grace);
  CHECK(settled.claim);
  CHECK(settled.key == 7);
  CHECK(settled.take_over);
}

namespace {

void asAdmin(const std::string& sql) {
  pqxx::connection c(testing::adminDatabaseUrl());
  pqxx::nontransaction tx(c);
  tx.exec(sql);
}

}  // namespace

TEST_CASE("a replica started while its database is unreachable takes its liveness lock later",
          "[engine][takeover]") {
  // The chaos harness found a replica restarted during a PostgreSQL restart that ran its whole
  // life without the lock: its runs waited a full lease when it was killed again.
  const std::string url = testing::freshDatabaseUrl();
  std::string name = url.substr(url.rfind('/') + 1);
  name = name.substr(0, name.find('?'));
  asAdmin("DROP DATABASE \"" + name + "\" WITH (FORCE)");
  auto liveness = inventory::ReplicaLiveness::hold(url);
  REQUIRE(liveness.ok());  // not an error: the keeper keeps trying
  CHECK((*liveness)->heldFor() == std::chrono::steady_clock::duration::zero());
  CHECK_FALSE((*liveness)->keep());
  asAdmin("CREATE DATABASE \"" + name + "\"");
  CHECK((*liveness)->keep());
  CHECK((*liveness)->heldFor() > std::chrono::steady_clock::duration::zero());
}

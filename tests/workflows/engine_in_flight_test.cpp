// The bookkeeping of the heartbeat without a database: which executions are renewed, which a
// renewal marks lost, and a StepContext without an engine's fence.
#include <catch2/catch.hpp>

#include "engine/in_flight.hpp"
#include "workflows/step.hpp"

using inventory::LeaseHold;
using workflows::detail::InFlightLeases;

TEST_CASE("Engine in-flight leases: a renewal marks lost only what the database did not keep",
          "[engine][unit][lease]") {
  InFlightLeases leases;
  auto a = leases.add({1, 7}, "flash");
  auto b = leases.add({2, 3}, "flash");
  auto c = leases.add({3, 1}, "verify");
  CHECK(leases.toRenew() == std::vector<LeaseHold>{{1, 7}, {2, 3}, {3, 1}});

  const auto asked = leases.toRenew();
  CHECK(leases.beginWriting(c) == false);  // c's outcome is being written (and clears its lease)
  const auto marked = leases.markLost(asked, {{1, 7}});
  REQUIRE(marked.size() == 1);
  CHECK(marked[0] == b);
  CHECK_FALSE(leases.lost(a));
  CHECK(leases.lost(b));
  CHECK_FALSE(leases.lost(c));  // its own write decides
  CHECK(leases.toRenew() == std::vector<LeaseHold>{{1, 7}});
  CHECK(leases.markLost(asked, {}).size() == 1);  // a now; b is not marked twice
  CHECK_FALSE(leases.markLost(b));
  CHECK(leases.beginWriting(b));  // lost: the outcome is not written
  leases.remove(c);
  CHECK(leases.markLost(asked, {}).empty());
  CHECK(leases.size() == 2);
}

TEST_CASE("Engine in-flight leases: the same run in flight twice is told apart by its epoch",
          "[engine][unit][lease]") {
  InFlightLeases leases;
  auto old_claim = leases.add({5, 1}, "flash");  // its lease expired; this replica claimed again
  auto new_claim = leases.add({5, 2}, "flash");
  const auto asked = leases.toRenew();
  CHECK(asked.size() == 2);
  const auto marked = leases.markLost(asked, {{5, 2}});
  REQUIRE(marked.size() == 1);
  CHECK(marked[0] == old_claim);
  leases.remove(old_claim);
  CHECK(leases.toRenew() == std::vector<LeaseHold>{{5, 2}});
  CHECK_FALSE(leases.lost(new_claim));
}

TEST_CASE("Engine StepContext without an installed fence says the lease holds",
          "[engine][unit][lease]") {
  workflows::StepContext ctx({}, nlohmann::json::object(), {});
  ctx.data()["intent"] = "flash";
  CHECK(ctx.fence());
  CHECK(ctx.recordIntent());

  int confirms = 0;
  nlohmann::json recorded;
  ctx.installFence({[&] { return ++confirms < 2; },
                    [&](const nlohmann::json& data) {
                      recorded = data;
                      return false;
                    }});
  CHECK(ctx.fence());
  CHECK_FALSE(ctx.fence());
  CHECK_FALSE(ctx.recordIntent());
  CHECK(recorded == nlohmann::json{{"intent", "flash"}});
}

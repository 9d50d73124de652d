// Which nodes the firmware re-inventory reads on a tick (pure).
#include <catch2/catch.hpp>

#include "reinventory/due_nodes.hpp"

using namespace workflows::reinventory;
using std::chrono::hours;
using std::chrono::minutes;
using std::chrono::seconds;

TEST_CASE("due nodes: never read first, then the oldest, within the budget", "[reinventory]") {
  const workflows::TimePoint now{hours(1000)};
  const DuePolicy policy{hours(6), minutes(15), {"ready"}};
  std::vector<NodeReadState> nodes = {
      {1, "ready", now - hours(7), now - hours(7), true},      // due
      {2, "ready", now - hours(1), now - hours(1), true},      // fresh
      {3, "ready", std::nullopt, std::nullopt, true},          // never read: first
      {4, "firmware", std::nullopt, std::nullopt, true},       // not in service
      {5, "ready", now - hours(9), now - minutes(5), false},   // unreachable, tried just now
      {6, "ready", now - hours(9), now - minutes(20), false},  // unreachable, retry due
  };
  CHECK(dueNodes(nodes, now, policy, 10) == std::vector<std::int64_t>{3, 6, 1});
  CHECK(dueNodes(nodes, now, policy, 2) == std::vector<std::int64_t>{3, 6});
  CHECK(dueNodes(nodes, now, policy, 0).empty());
}

TEST_CASE("the tick budget spreads the rate over time", "[reinventory]") {
  CHECK(tickBudget(120, seconds(30)) == 60);
  CHECK(tickBudget(120, minutes(2)) == 240);
  CHECK(tickBudget(1, seconds(1)) == 1);
  CHECK(tickBudget(0, minutes(1)) == 0);
}

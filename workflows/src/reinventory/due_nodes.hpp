// Which nodes the re-inventory reads now (pure): in-service nodes never read, or read longer
// ago than the interval (an unreachable one: tried longer ago than the retry time), oldest
// first, at most `budget`.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "workflows/clock.hpp"

namespace workflows::reinventory {

struct NodeReadState {
  std::int64_t node_id = 0;
  std::string state;
  std::optional<TimePoint> observed_at;   // last successful read
  std::optional<TimePoint> attempted_at;  // last attempt
  bool reachable = true;
};

struct DuePolicy {
  Duration interval;
  Duration retry_unreachable;
  std::vector<std::string> states;
};

std::vector<std::int64_t> dueNodes(const std::vector<NodeReadState>& nodes, TimePoint now,
                                   const DuePolicy& policy, std::size_t budget);

// The reads a tick may make: `per_minute` spread over time, so a tick of 30 s reads half of it;
// at least one when the rate allows any.
std::size_t tickBudget(int per_minute, Duration since_last_tick);

}  // namespace workflows::reinventory

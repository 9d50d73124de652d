#include "due_nodes.hpp"

#include <algorithm>
#include <cmath>

namespace workflows::reinventory {

std::vector<std::int64_t> dueNodes(const std::vector<NodeReadState>& nodes, TimePoint now,
                                   const DuePolicy& policy, std::size_t budget) {
  struct Due {
    TimePoint since;
    std::int64_t id;
  };
  std::vector<Due> due;
  for (const auto& n : nodes) {
    if (std::find(policy.states.begin(), policy.states.end(), n.state) == policy.states.end()) {
      continue;
    }
    if (!n.reachable && n.attempted_at && now - *n.attempted_at < policy.retry_unreachable) {
      continue;
    }
    if (n.observed_at && now - *n.observed_at < policy.interval) continue;
    due.push_back({n.observed_at.value_or(TimePoint{}), n.node_id});
  }
  std::sort(due.begin(), due.end(), [](const Due& a, const Due& b) {
    return a.since != b.since ? a.since < b.since : a.id < b.id;
  });
  std::vector<std::int64_t> out;
  for (std::size_t i = 0; i < due.size() && i < budget; ++i) out.push_back(due[i].id);
  return out;
}

std::size_t tickBudget(int per_minute, Duration since_last_tick) {
  if (per_minute <= 0) return 0;
  const double minutes = std::chrono::duration<double>(since_last_tick).count() / 60.0;
  return static_cast<std::size_t>(std::max(1.0, std::floor(per_minute * minutes)));
}

}  // namespace workflows::reinventory

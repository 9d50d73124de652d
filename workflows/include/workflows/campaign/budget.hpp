// The failure budget (pure): spent when failures > count, or failures / started > percent.
#pragma once

#include <string>

#include "workflows/campaign/spec.hpp"

namespace workflows::campaign {

struct BudgetState {
  bool spent = false;
  // "3 failures > budget 2" or "3 of 20 started nodes failed (15.0% > budget 10.0%)"; empty
  // when not spent.
  std::string reason;
};
// `started`: nodes that began their update so far; `failed`: those of them that failed. A budget
// with neither count nor percent is never spent; the share is only judged once a node started.
BudgetState budget(const FailureBudget& budget, int started, int failed);

}  // namespace workflows::campaign

#include "workflows/campaign/budget.hpp"

#include <cstdio>

namespace workflows::campaign {

BudgetState budget(const FailureBudget& b, int started, int failed) {
  if (b.count && failed > *b.count) {
    return {true, std::to_string(failed) + (failed == 1 ? " failure" : " failures") + " > budget " +
                      std::to_string(*b.count)};
  }
  if (b.percent && started > 0) {
    const double share = 100.0 * failed / started;
    if (share > *b.percent) {
      char text[128];
      std::snprintf(text, sizeof text, "%d of %d started nodes failed (%.1f%% > budget %.1f%%)",
                    failed, started, share, *b.percent);
      return {true, text};
    }
  }
  return {false, ""};
}

}  // namespace workflows::campaign

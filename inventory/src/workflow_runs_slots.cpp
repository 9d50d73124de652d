// Admission slots: caps on runs in a step per rack or site (BMC and power budgets).
#include "inventory/workflow_runs.hpp"
#include "queries_workflows.hpp"
#include "workflow_runs_rows.hpp"

namespace inventory {

using detail::Tx;

common::Result<bool> acquireWorkflowSlot(Database& db, Id run_id, const std::string& scope,
                                         const std::string& key, int cap, WallTime now) {
  if (scope.empty()) return common::invalidArgument("missing_field", "scope is required", "scope");
  if (cap < 0) return common::invalidArgument("invalid_cap", "cap must not be negative", "cap");
  return detail::withTransaction(db, "acquire_workflow_slot", [&](Tx& tx) -> common::Result<bool> {
    // Taken before the count's snapshot: two runs never both see a free last slot.
    tx.exec(detail::kLockSlotKey, scope, key);
    auto row = tx.exec(detail::kTakeSlot, run_id, scope, key, cap, detail::micros(now))[0];
    if (!row[0].is_null()) {
      const std::string held = detail::text(row[0]);
      if (held == key) return true;
      return common::conflict("slot_scope_held", "run " + std::to_string(run_id) + " holds the " +
                                                     scope + " slot of " + held);
    }
    return row[1].as<std::int64_t>() == 1;
  });
}

}  // namespace inventory

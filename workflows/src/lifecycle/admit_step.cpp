// admit: caps how many nodes of a rack (power, switch ports) and of a site are between claim and
// burn-in at once. A refused run waits; a freed slot signals it sooner.
#include "inventory/workflow_runs.hpp"
#include "lifecycle_internal.hpp"

namespace workflows::lifecycle {
namespace {

// nullopt: admitted in this scope (or no cap); else the outcome to return.
std::optional<StepOutcome> takeSlot(const Env& env, StepContext& ctx, const std::string& scope,
                                    const std::string& key, int cap) {
  if (cap <= 0 || key.empty()) return std::nullopt;
  auto admitted =
      inventory::acquireWorkflowSlot(*env.deps.db, ctx.run().id, scope, key, cap, ctx.now());
  if (!admitted) return outcomeFor(admitted.error(), "taking a " + scope + " slot");
  if (*admitted) return std::nullopt;
  const std::string what = "slot:" + scope + ":" + key;
  return StepOutcome::waitUntil(
      env.after(ctx.now(), env.settings.timings.slot_recheck), what,
      "waiting for one of the " + std::to_string(cap) + " " + scope + " slots of " + key);
}

}  // namespace

StepOutcome admitStep(const Env& env, StepContext& ctx) {
  if (auto refused = takeSlot(env, ctx, "rack", ctx.run().rack, env.settings.max_active_per_rack)) {
    return *refused;
  }
  if (auto refused = takeSlot(env, ctx, "site", ctx.run().site, env.settings.max_active_per_site)) {
    return *refused;
  }
  return StepOutcome::next("claim", "admitted");
}

}  // namespace workflows::lifecycle

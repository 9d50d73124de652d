// recover: where every failure of a node's update lands (the engine puts it in data "failure").
// Nothing changed: the node goes back to the scheduler untouched, counted as failed. Changed,
// with a package of every touched component's previous version: rolled back (verified) and
// undrained. Otherwise, or when the rollback itself fails: quarantined with the reason.
#include "../lifecycle/host_control.hpp"
#include "flash_components.hpp"
#include "inventory/nodes.hpp"
#include "node_steps.hpp"

namespace workflows::rollout {
namespace {

using nlohmann::json;

StepOutcome quarantine(const Env& env, StepContext& ctx, const std::string& campaign_state,
                       const std::string& reason, const std::string& message,
                       const json& detail) {
  auto node = lifecycle::nodeIdOf(ctx);
  if (node) {
    auto set = inventory::setNodeState(*env.life.deps.db, *node, "quarantined", "campaign",
                                       reason + ": " + message, detail.dump());
    if (!set) return StepOutcome::retry("inventory_error", set.error().message);
  }
  auto reported = reportNodeResult(env, ctx, campaign_state, reason, detail);
  if (!reported) return StepOutcome::retry("inventory_error", reported.error().message);
  return StepOutcome::fail(reason, message + " (node quarantined)", detail);
}

}  // namespace

StepOutcome recoverStep(const Env& env, StepContext& ctx) {
  const json failure = ctx.data().value("failure", json::object());
  const std::string reason = failure.value("reason", "failed");
  const std::string message = failure.value("message", "");
  const std::string failed_step = failure.value("step", "");
  json detail = failure.value("detail", json::object());
  detail["failed_step"] = failed_step;

  if (ctx.data().contains("recover") || failed_step == "rollback_flash") {
    const json first = ctx.data()["recover"];
    json evidence = {{"update_failure", first.value("reason", "")},
                     {"rollback_failure", reason},
                     {"detail", detail}};
    return quarantine(env, ctx, "rollback_failed", "rollback_failed",
                      "rolling back after " + first.value("reason", std::string("a failure")) +
                          " failed: " + message,
                      evidence);
  }
  if (failed_step == "undrain") {
    auto reported = reportNodeResult(env, ctx, "failed", reason, detail);
    if (!reported) return StepOutcome::retry("inventory_error", reported.error().message);
    return StepOutcome::fail(reason, "the node could not be given back to the scheduler: " +
                                         message);
  }
  auto components = parseComponents(ctx.data().value("components", json()));
  const auto touched = components ? touchedComponents(ctx.data().value("flash", json::object()),
                                                      *components)
                                  : std::vector<ComponentUpdate>{};
  if (touched.empty()) {
    ctx.data()["result"] = {{"state", "failed"}, {"reason", reason}, {"detail", detail}};
    return StepOutcome::next("undrain", "nothing was changed: " + message);
  }
  auto back = rollbackOf(touched);
  if (!back) {
    return quarantine(env, ctx, "failed", reason,
                      message + "; no package of the previous version to roll back to", detail);
  }
  json list = json::array();
  for (const auto& c : *back) list.push_back(toJson(c));
  ctx.data()["recover"] = {
      {"reason", reason}, {"message", message}, {"detail", detail}, {"components", list}};
  ctx.event("rollback_planned", "rolling back " + std::to_string(back->size()) +
                                    " component(s) after " + reason + ": " + message,
            {{"components", list}});
  return StepOutcome::next("rollback_flash", "rolling back after " + reason);
}

}  // namespace workflows::rollout

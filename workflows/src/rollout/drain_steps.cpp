// drain and undrain: the scheduler stops placing jobs on the node and says when it is idle;
// after the update (or its rollback) it gets the node back.
#include "../lifecycle/host_control.hpp"
#include "../lifecycle/webhook.hpp"
#include "drain_payload.hpp"
#include "inventory/nodes.hpp"
#include "node_steps.hpp"

namespace workflows::rollout {
namespace {

using lifecycle::isoTime;
using lifecycle::timeAt;

std::string campaignLabel(const StepContext& ctx) {
  return "campaign " + std::to_string(ctx.data().value("campaign_id", 0));
}

}  // namespace

common::Result<bool> tellScheduler(const Env& env, StepContext& ctx, bool drain,
                                   const std::string& reason) {
  const DrainHook& hook = env.settings.drain;
  if (hook.url.empty()) return true;
  PROV_ASSIGN(auto node_id, lifecycle::nodeIdOf(ctx));
  PROV_ASSIGN(auto node, inventory::getNode(*env.life.deps.db, node_id));
  PROV_ASSIGN(
      auto payload,
      drainPayload(hook.format, drain ? DrainAction::kDrain : DrainAction::kResume, node, reason));
  PROV_ASSIGN(auto answer, lifecycle::postWebhook(hook.url, hook.token, payload));
  if (answer.status < 200 || answer.status >= 300) {
    return common::fail(common::unavailable(
        "scheduler_refused",
        "the scheduler at " + hook.url + " answered HTTP " + std::to_string(answer.status)));
  }
  return schedulerSaysIdle(answer.body);
}

StepOutcome drainUntilIdle(const Env& env, StepContext& ctx, const std::string& reason,
                           const std::string& next_step) {
  nlohmann::json& drain = section(ctx, "drain");
  if (!drain.contains("requested_at")) drain["requested_at"] = isoTime(ctx.current());
  auto idle = tellScheduler(env, ctx, true, reason);
  if (!idle && idle.error().kind == common::ErrorKind::kInvalidArgument) {
    return StepOutcome::fail("invalid_drain_hook", idle.error().message);
  }
  const auto deadline =
      env.after(*timeAt(drain, "requested_at"), env.settings.timings.drain_timeout);
  if (idle && *idle) {
    drain["idle_at"] = isoTime(ctx.current());
    return StepOutcome::next(next_step, "the scheduler says the node is idle");
  }
  if (ctx.now() >= deadline) {
    return StepOutcome::fail("drain_timeout",
                             "the scheduler did not report the node idle in time" +
                                 (idle ? std::string() : ": " + idle.error().message));
  }
  return pollUntil(env, ctx, env.life.settings.timings.poll, deadline, "scheduler_idle",
                   idle ? "jobs still running on the node" : idle.error().message);
}

StepOutcome drainStep(const Env& env, StepContext& ctx) {
  if (!section(ctx, "drain").contains("requested_at")) {
    lifecycle::enterState(env.life, ctx, "firmware", campaignLabel(ctx) + ": updating firmware");
  }
  return drainUntilIdle(env, ctx, campaignLabel(ctx) + ": firmware update", "flash");
}

StepOutcome undrainStep(const Env& env, StepContext& ctx) {
  const nlohmann::json result = ctx.data().value("result", nlohmann::json::object());
  // A campaign rollback's node run that went through took the node back: rolled_back.
  const bool rollback = ctx.data().value("mode", "update") == "rollback";
  const std::string state = result.value("state", rollback ? "rolled_back" : "succeeded");
  if (auto told = tellScheduler(env, ctx, false, campaignLabel(ctx) + ": firmware " + state);
      !told) {
    if (told.error().kind == common::ErrorKind::kInvalidArgument) {
      return StepOutcome::fail("invalid_drain_hook", told.error().message);
    }
    return StepOutcome::retry("scheduler_unreachable", told.error().message);
  }
  lifecycle::enterState(env.life, ctx, "ready", campaignLabel(ctx) + ": firmware " + state);
  auto reported = reportNodeResult(env, ctx, state, result.value("reason", ""),
                                   result.value("detail", nlohmann::json::object()));
  if (!reported) return StepOutcome::retry("inventory_error", reported.error().message);
  return StepOutcome::succeed("node back in service (" + state + ")");
}

}  // namespace workflows::rollout

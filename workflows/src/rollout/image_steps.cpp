// The steps of an image update (image_steps.hpp). Draining, the quick check and undraining are
// the firmware update's own steps: the quick check is what boots a node into an image (a one-time
// network boot with an agent task; the task names the image, the boot route serves it), so
// "boot the new version, wait for the agent, run the check" is one quick check pointed at it.
#include "image_steps.hpp"

#include "../lifecycle/host_control.hpp"
#include "image_plan.hpp"
#include "inventory/nodes.hpp"
#include "node_steps.hpp"

namespace workflows::rollout {
namespace {

using nlohmann::json;

// Intent first: the image and phase are written before the reboot they are about, so a replica
// that resumes the run knows which image the node was sent to.
void recordBoot(StepContext& ctx, const std::string& phase, const ImageVersion& image) {
  ctx.data()["image_boot"] = {
      {"phase", phase}, {"image", toJson(image)}, {"at", lifecycle::isoTime(ctx.current())}};
  ctx.data()["boot_image"] = toJson(image);
  ctx.data().erase("check");  // a new quick-check task for this boot
  ctx.event("image_boot_planned", "booting " + phase + " image " + image.name + " " + image.version,
            {{"phase", phase}, {"image", toJson(image)}});
}

std::string bootedPhase(const StepContext& ctx) {
  const json boot = ctx.data().value("image_boot", json::object());
  return boot.is_object() ? boot.value("phase", "") : "";
}

StepOutcome quarantine(const Env& env, StepContext& ctx, const std::string& campaign_state,
                       const std::string& reason, const std::string& message, const json& detail) {
  if (auto node = lifecycle::nodeIdOf(ctx)) {
    auto set = inventory::setNodeState(*env.life.deps.db, *node, "quarantined", "campaign",
                                       reason + ": " + message, detail.dump());
    if (!set) return StepOutcome::retry("inventory_error", set.error().message);
  }
  auto reported = reportNodeResult(env, ctx, campaign_state, reason, detail);
  if (!reported) return StepOutcome::retry("inventory_error", reported.error().message);
  return StepOutcome::fail(reason, message + " (node quarantined)", detail);
}

}  // namespace

StepOutcome imageDrainStep(const Env& env, StepContext& ctx) {
  json& drain = section(ctx, "drain");
  if (!drain.contains("requested_at")) {  // drainStep then keeps this label
    drain["requested_at"] = lifecycle::isoTime(ctx.current());
    lifecycle::enterState(
        env.life, ctx, "imaging",
        "campaign " + std::to_string(ctx.data().value("campaign_id", 0)) + ": updating the image");
  }
  StepOutcome outcome = drainStep(env, ctx);
  // The firmware update flashes after the drain; an image update boots the new image.
  if (outcome.kind == StepOutcome::Kind::kNext) outcome.step = "boot_new";
  return outcome;
}

StepOutcome bootNewImageStep(const Env&, StepContext& ctx) {
  const json image = ctx.data().value("image", json::object());
  auto to = imageAt(image, "to");
  if (!to) return StepOutcome::fail("no_image", "the run names no image to boot (image.to)");
  recordBoot(ctx, "new", *to);
  return StepOutcome::next("quick_check", "booting " + to->name + " " + to->version);
}

StepOutcome imageCheckStep(const Env& env, StepContext& ctx) {
  // The check is the boot: an image update always runs it, whatever the campaign says.
  ctx.data()["quick_check"] = true;
  // The agent's result wakes the run (agent_routes.cpp); the quick check's deadline is the
  // safety net, as for the lifecycle's burn-in.
  return quickCheckStep(env, ctx);
}

StepOutcome recoverImageStep(const Env& env, StepContext& ctx) {
  const json failure = ctx.data().value("failure", json::object());
  const std::string reason = failure.value("reason", "failed");
  const std::string message = failure.value("message", "");
  const std::string failed_step = failure.value("step", "");
  json detail = failure.value("detail", json::object());
  detail["failed_step"] = failed_step;
  const json image = ctx.data().value("image", json::object());
  const auto from = imageAt(image, "from");
  const std::string booted = bootedPhase(ctx);
  const auto d = decideImageRecovery(failed_step, booted, from.has_value());
  switch (d.action) {
    case ImageRecovery::kReportFailed: {
      auto reported = reportNodeResult(env, ctx, d.campaign_state, reason, detail);
      if (!reported) return StepOutcome::retry("inventory_error", reported.error().message);
      return StepOutcome::fail(reason,
                               "the node could not be given back to the scheduler: " + message);
    }
    case ImageRecovery::kResume:
      ctx.data()["result"] = {{"state", d.campaign_state}, {"reason", reason}, {"detail", detail}};
      return StepOutcome::next("undrain", "nothing was booted: " + message);
    case ImageRecovery::kQuarantine: {
      if (booted == "previous") {
        const json first = ctx.data().value("result", json::object());
        json evidence = {{"update_failure", first.value("reason", "")},
                         {"rollback_failure", reason},
                         {"detail", detail}};
        return quarantine(env, ctx, d.campaign_state, "rollback_failed",
                          "the previous image did not come up either: " + message, evidence);
      }
      return quarantine(env, ctx, d.campaign_state, reason,
                        message + "; the image the node ran before is not known", detail);
    }
    case ImageRecovery::kBootPrevious:
      ctx.data()["result"] = {{"state", d.campaign_state}, {"reason", reason}, {"detail", detail}};
      recordBoot(ctx, "previous", *from);
      return StepOutcome::next("check_previous", "booting back into " + from->name + " " +
                                                     from->version + " after " + reason);
  }
  return StepOutcome::fail("unknown_decision", "recover_image decided nothing it knows");
}

}  // namespace workflows::rollout

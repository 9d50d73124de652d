// flash and rollback_flash: the components of the plan, or the touched ones taken back.
#include "flash_components.hpp"
#include "node_steps.hpp"

namespace workflows::rollout {
namespace {

StepOutcome badComponents(const common::Error& error) {
  return StepOutcome::fail("invalid_components", error.message, {{"field", error.field}});
}

}  // namespace

StepOutcome flashStep(const Env& env, StepContext& ctx) {
  auto components = parseComponents(ctx.data().value("components", nlohmann::json()));
  if (!components) return badComponents(components.error());
  if (auto outcome = flashComponents(env, ctx, "flash", *components)) return *outcome;
  return StepOutcome::next("quick_check", "every component verified at its new version");
}

StepOutcome rollbackFlashStep(const Env& env, StepContext& ctx) {
  const nlohmann::json& recover = ctx.data().value("recover", nlohmann::json::object());
  auto components = parseComponents(recover.value("components", nlohmann::json()));
  if (!components) return badComponents(components.error());
  if (auto outcome = flashComponents(env, ctx, "rollback_flash", *components)) return *outcome;
  ctx.data()["result"] = {{"state", "rolled_back"},
                          {"reason", recover.value("reason", "")},
                          {"detail", recover.value("detail", nlohmann::json::object())}};
  return StepOutcome::next("undrain", "rolled back and verified at the previous versions");
}

}  // namespace workflows::rollout

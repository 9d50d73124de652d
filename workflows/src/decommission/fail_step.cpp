// fail_decommission: the decommission ends failed with the engine's failure (the step, the reason,
// the message naming the device serial and what failed); the node goes to decommission_failed
// and nothing is signed.
#include "decommission_env.hpp"
#include "redfish/json.hpp"

namespace workflows::decommission {

StepOutcome failDecommissionStep(const Env& env, StepContext& ctx) {
  const nlohmann::json failure = ctx.data().value("failure", nlohmann::json::object());
  const std::string reason = failure.value("reason", std::string("failed"));
  const std::string message = failure.value("message", std::string("decommission failed"));
  const nlohmann::json detail = failure.value("detail", nlohmann::json::object());
  auto id = decommissionIdOf(ctx);
  if (!id) return StepOutcome::fail(reason, message, detail);
  const nlohmann::json recorded = {{"step", failure.value("step", std::string())},
                                   {"message", message},
                                   {"serial", detail.value("serial", std::string())},
                                   {"detail", detail}};
  auto failed = inventory::failDecommission(env.db(), *id, reason, recorded.dump(), ctx.now());
  if (!failed && failed.error().code != "decommission_not_running") {
    return StepOutcome::retry("inventory_error", failed.error().message);
  }
  // The run ends failed, with the same reason, so operators see it among failed runs.
  return StepOutcome::fail(reason, message, detail);
}

}  // namespace workflows::decommission

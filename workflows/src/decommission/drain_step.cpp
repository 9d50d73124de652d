// drain: the node leaves the scheduler (the rollout's drain, the same hook) before anything is
// erased. It also copies how the node's lifecycle run reached the BMC into this run.
#include "../lifecycle/host_control.hpp"
#include "../rollout/node_steps.hpp"
#include "decommission_env.hpp"
#include "redfish/json.hpp"

namespace workflows::decommission {

common::Result<inventory::Id> decommissionIdOf(const StepContext& ctx) {
  if (auto id = redfish::intAt(ctx.data(), "decommission_id"); id && *id > 0) return *id;
  return common::fail(common::invalidArgument(
      "no_decommission", "the run's context names no decommission_id", "decommission_id"));
}

common::Result<inventory::Decommission> decommissionOf(const Env& env, const StepContext& ctx) {
  PROV_ASSIGN(auto id, decommissionIdOf(ctx));
  return inventory::getDecommission(env.db(), id);
}

std::string decommissionLabel(const inventory::Decommission& d) {
  return "decommission " + std::to_string(d.id) + " (" + d.reason + ")";
}

StepOutcome drainStep(const Env& env, StepContext& ctx) {
  auto decommission = decommissionOf(env, ctx);
  if (!decommission) {
    if (decommission.error().kind == common::ErrorKind::kInvalidArgument ||
        decommission.error().kind == common::ErrorKind::kNotFound) {
      return StepOutcome::fail("no_decommission", decommission.error().message);
    }
    return StepOutcome::retry("inventory_error", decommission.error().message);
  }
  if (!ctx.run().node_id) {
    ctx.attachNode(decommission->node_id, ctx.run().site, ctx.run().rack);
  }
  if (!ctx.data().contains("node_id")) {
    ctx.data()["node_id"] = decommission->node_id;
    const auto bmc = lifecycle::nodeBmcContext(env.life(), decommission->node_id);
    for (const auto& [key, value] : bmc.items()) {
      if (!ctx.data().contains(key)) ctx.data()[key] = value;
    }
  }
  return rollout::drainUntilIdle(env.roll, ctx, decommissionLabel(*decommission), "wipe_boot");
}

}  // namespace workflows::decommission

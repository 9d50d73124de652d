// imaging: the node's burn-in task (reused while one is open), a one-time network boot into the
// service's iPXE script, and a host reset. The agent in the booted image takes it from there.
//
//   data "imaging": {"task_id", "boots": n, "booted_at"}, and "boot_intent" while booting
#include "agent/protocol.hpp"
#include "host_control.hpp"
#include "inventory/agent_tasks.hpp"
#include "inventory/nodes.hpp"
#include "redfish/boot.hpp"
#include "redfish/json.hpp"

namespace workflows::lifecycle {
namespace {

using nlohmann::json;

// The same task as POST /api/v1/nodes/{id}/burn-in without a body would create.
inventory::AgentTaskSpec burnInSpec(const inventory::Node& node,
                                    const std::optional<inventory::HardwareProfile>& profile,
                                    TimePoint now) {
  inventory::AgentTaskSpec spec;
  spec.node_id = node.id;
  spec.kind = "burn_in";
  spec.spec_json = profile && profile->burn_in_plan_json != "{}"
                       ? profile->burn_in_plan_json
                       : agent::toJson(agent::defaultBurnInPlan()).dump();
  spec.batch = inventory::defaultBurnInBatch(node, now);
  spec.expected_gpus =
      profile && profile->expected_gpus > 0 ? profile->expected_gpus : node.gpu_count;
  return spec;
}

common::Result<inventory::AgentTask> openOrCreateTask(const Env& env, const StepContext& ctx,
                                                      const inventory::Node& node) {
  auto& db = *env.deps.db;
  PROV_ASSIGN(auto open, inventory::openTaskForNode(db, node.id));
  if (open) return *open;
  PROV_ASSIGN(auto profile, profileOf(env, ctx));
  auto created = inventory::createAgentTask(db, burnInSpec(node, profile, ctx.now()), "workflow");
  if (!created && created.error().code == "task_already_open") {
    PROV_ASSIGN(auto raced, inventory::openTaskForNode(db, node.id));
    if (raced) return *raced;
  }
  return created;
}

}  // namespace

StepOutcome imagingStep(const Env& env, StepContext& ctx) {
  auto node_id = nodeIdOf(ctx);
  if (!node_id) return StepOutcome::fail("no_node", node_id.error().message);
  auto node = inventory::getNode(*env.deps.db, *node_id);
  if (!node) return StepOutcome::retry("inventory_error", node.error().message);
  auto task = openOrCreateTask(env, ctx, *node);
  if (!task) return StepOutcome::retry("inventory_error", task.error().message);
  if (node->state != "imaging") enterState(env, ctx, "imaging");

  json& imaging = ctx.data()["imaging"];
  if (!imaging.is_object()) imaging = json::object();
  NetworkBoot boot;
  if (auto trouble = bootIntoNetwork(env, ctx, imaging, boot)) return *trouble;

  const int boots = static_cast<int>(redfish::intAt(imaging, "boots").value_or(0)) + 1;
  imaging["task_id"] = task->id;
  imaging["boots"] = boots;
  imaging["booted_at"] = isoTime(ctx.current());
  imaging.erase("entered");  // burn_in enters its node state once per boot
  ctx.event(
      "network_boot",
      boot.summary() + " (boot " + std::to_string(boots) + ") for task " + std::to_string(task->id),
      {{"task_id", task->id},
       {"boots", boots},
       {"target", boot.target},
       {"adopted", boot.adopted}});
  return StepOutcome::next("burn_in", "booting into the burn-in image");
}

}  // namespace workflows::lifecycle

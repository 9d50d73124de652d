// wipe_boot: decides which drives the BMC erases (before the boot, so the agent skips them),
// creates the node's wipe task with that plan, and network-boots the node into the wipe image,
// as imaging does for a burn-in.
#include "../lifecycle/host_control.hpp"
#include "decommission_env.hpp"
#include "inventory/agent_tasks.hpp"
#include "inventory/nodes.hpp"
#include "redfish/json.hpp"
#include "wipe_plan.hpp"

namespace workflows::decommission {
namespace {

using nlohmann::json;

// Lists the drives once; the plan stays fixed for the run (a resume must erase what was planned).
std::optional<StepOutcome> planOnce(const Env& env, StepContext& ctx, json& wipe) {
  if (wipe.contains("plan")) return std::nullopt;
  auto client = env.life().bmc(ctx);
  if (!client) return lifecycle::bmcTrouble("connecting to the BMC", client.error());
  auto quirks = lifecycle::quirksOf(**client, ctx);
  if (!quirks) return lifecycle::bmcTrouble("reading the service root", quirks.error());
  auto drives = redfish::listDrives(**client, lifecycle::systemPathOf(ctx), *quirks);
  if (!drives) return lifecycle::bmcTrouble("listing the drives", drives.error());
  const auto plan = planDrives(*drives);
  wipe["plan"] = planJson(plan);
  const auto oob = wipe["plan"]["oob"].size();
  ctx.event("wipe_plan",
            std::to_string(oob) + " drive(s) erased out of band by the BMC, " +
                std::to_string(plan.size() - oob) + " in band by the agent",
            wipe["plan"]);
  return std::nullopt;
}

inventory::AgentTaskSpec wipeSpec(const Env& env, const inventory::Node& node,
                                  const inventory::Decommission& d, const json& plan) {
  inventory::AgentTaskSpec spec;
  spec.node_id = node.id;
  spec.kind = "wipe";
  spec.spec_json =
      agent::toJson(agentPlan(planFromJson(plan), d.wipe_seed, env.settings.drive_sample_coverage))
          .dump();
  spec.expected_gpus = node.gpu_count;
  return spec;
}

// The node's open wipe task, else a new one; an open task of another kind (a burn-in nobody will
// finish now) is cancelled first: a node has one open task.
common::Result<inventory::AgentTask> openOrCreateWipeTask(const Env& env,
                                                          const inventory::Node& node,
                                                          const inventory::Decommission& d,
                                                          const json& plan) {
  PROV_ASSIGN(auto open, inventory::openTaskForNode(env.db(), node.id));
  if (open && open->kind == "wipe") return *open;
  if (open) {
    auto cancelled = inventory::cancelAgentTask(env.db(), open->id, "workflow",
                                                decommissionLabel(d) + " supersedes it");
    if (!cancelled && cancelled.error().code != "task_not_open") {
      return common::fail(std::move(cancelled).error());
    }
  }
  auto created = inventory::createAgentTask(env.db(), wipeSpec(env, node, d, plan), "workflow");
  if (!created && created.error().code == "task_already_open") {
    PROV_ASSIGN(auto raced, inventory::openTaskForNode(env.db(), node.id));
    if (raced && raced->kind == "wipe") return *raced;
  }
  return created;
}

}  // namespace

StepOutcome wipeBootStep(const Env& env, StepContext& ctx) {
  auto decommission = decommissionOf(env, ctx);
  if (!decommission) return StepOutcome::retry("inventory_error", decommission.error().message);
  auto node = inventory::getNode(env.db(), decommission->node_id);
  if (!node) return StepOutcome::retry("inventory_error", node.error().message);
  json& wipe = rollout::section(ctx, "wipe");
  if (auto trouble = planOnce(env, ctx, wipe)) return *trouble;
  auto task = openOrCreateWipeTask(env, *node, *decommission, wipe["plan"]);
  if (!task) return StepOutcome::retry("inventory_error", task.error().message);

  lifecycle::NetworkBoot boot;
  if (auto trouble = lifecycle::bootIntoNetwork(env.life(), ctx, wipe, boot)) return *trouble;
  const int boots = static_cast<int>(redfish::intAt(wipe, "boots").value_or(0)) + 1;
  wipe["task_id"] = task->id;
  wipe["boots"] = boots;
  wipe["booted_at"] = lifecycle::isoTime(ctx.current());
  ctx.event("network_boot",
            boot.summary() + " into the " + env.settings.wipe_channel + " image (boot " +
                std::to_string(boots) + ") for wipe task " + std::to_string(task->id),
            {{"task_id", task->id},
             {"boots", boots},
             {"target", boot.target},
             {"adopted", boot.adopted},
             {"channel", env.settings.wipe_channel}});
  return StepOutcome::next("wipe_result", "booting into the wipe image");
}

}  // namespace workflows::decommission

// quick_check: the profile's burn-in plan, each test cut to a minute, through the agent in the
// node's image: a one-time network boot, the agent's verdict. Its figures are also what the
// campaign's controller compares against not-yet-updated peers.
//
//   data "check": {"task_id", "booted_at"}, and "boot_intent" while booting (host_control.hpp)
//   data "boot_image" (an image update): {"name", "version"}, written into the task's spec
#include <algorithm>

#include "../lifecycle/host_control.hpp"
#include "agent/protocol.hpp"
#include "image_plan.hpp"
#include "inventory/agent_tasks.hpp"
#include "inventory/boot_image.hpp"
#include "inventory/nodes.hpp"
#include "node_steps.hpp"
#include "redfish/json.hpp"

namespace workflows::rollout {
namespace {

using lifecycle::isoTime;
using lifecycle::timeAt;
using nlohmann::json;

common::Result<inventory::AgentTask> createCheck(const Env& env, const StepContext& ctx,
                                                 const inventory::Node& node) {
  auto& db = *env.life.deps.db;
  PROV_ASSIGN(auto open, inventory::openTaskForNode(db, node.id));
  if (open) return *open;
  PROV_ASSIGN(auto profile, lifecycle::profileOf(env.life, ctx));
  inventory::AgentTaskSpec spec;
  spec.node_id = node.id;
  spec.kind = "burn_in";
  spec.spec_json = quickPlan(profile, env.settings.timings.quick_check_seconds).dump();
  // An image update names the image this boot serves (the boot route reads it from the task).
  if (auto image = imageAt(ctx.data(), "boot_image")) {
    spec.spec_json = inventory::withBootImage(spec.spec_json, {image->name, image->version});
  }
  // Its own batch: the verdict's peer comparison is among this node's GPUs only. Against the
  // nodes not yet updated is the campaign gate's comparison (gate.hpp), not a node failure: a
  // whole-node slowdown a firmware causes must pause the campaign, not quarantine canaries.
  spec.batch = "quick-check/" + node.chassis_serial + "/run-" + std::to_string(ctx.run().id);
  spec.expected_gpus = expectedGpus(profile, node);
  return inventory::createAgentTask(db, spec, "campaign");
}

StepOutcome bootIntoCheck(const Env& env, StepContext& ctx) {
  auto node_id = lifecycle::nodeIdOf(ctx);
  if (!node_id) return StepOutcome::fail("no_node", node_id.error().message);
  auto node = inventory::getNode(*env.life.deps.db, *node_id);
  if (!node) return StepOutcome::retry("inventory_error", node.error().message);
  auto task = createCheck(env, ctx, *node);
  if (!task) return StepOutcome::retry("inventory_error", task.error().message);
  json& check = section(ctx, "check");
  lifecycle::NetworkBoot boot;
  if (auto trouble = lifecycle::bootIntoNetwork(env.life, ctx, check, boot)) return *trouble;
  check["task_id"] = task->id;
  check["booted_at"] = isoTime(ctx.current());
  ctx.event("quick_check_boot",
            boot.summary() + " for quick check task " + std::to_string(task->id),
            {{"task_id", task->id}, {"adopted", boot.adopted}});
  return StepOutcome::waitUntil(env.after(ctx.now(), env.settings.timings.quick_check_timeout),
                                "agent_result", "quick check task " + std::to_string(task->id));
}

StepOutcome checkFailed(const Env& env, const inventory::AgentTask& task) {
  auto results = inventory::taskResults(*env.life.deps.db, task.id);
  if (!results) return StepOutcome::retry("inventory_error", results.error().message);
  json failures = json::array();
  std::string first;
  for (const auto& r : *results) {
    if (r.passed) continue;
    if (first.empty()) {
      first = "GPU " + r.gpu_serial + " " + r.test + " " + std::to_string(r.value) + " " + r.unit +
              " (" + r.reason + ")";
    }
    failures.push_back(
        {{"gpu_serial", r.gpu_serial}, {"test", r.test}, {"value", r.value}, {"reason", r.reason}});
  }
  if (first.empty()) first = "task " + std::to_string(task.id) + " " + task.state;
  return StepOutcome::fail("quick_check_failed", "quick check after the update failed: " + first,
                           {{"task_id", task.id}, {"failures", failures}});
}

}  // namespace

json quickPlan(const std::optional<inventory::HardwareProfile>& profile, int seconds) {
  agent::BurnInPlan plan = agent::defaultBurnInPlan();
  if (profile && profile->burn_in_plan_json != "{}") {
    auto parsed = agent::parseBurnInPlan(json::parse(profile->burn_in_plan_json, nullptr, false));
    if (parsed) plan = *parsed;
  }
  for (auto& test : plan.tests) test.duration_s = std::min<double>(test.duration_s, seconds);
  return agent::toJson(plan);
}

int expectedGpus(const std::optional<inventory::HardwareProfile>& profile,
                 const inventory::Node& node) {
  return profile && profile->expected_gpus > 0 ? profile->expected_gpus : node.gpu_count;
}

StepOutcome quickCheckStep(const Env& env, StepContext& ctx) {
  if (!ctx.data().value("quick_check", true)) {
    return StepOutcome::next("undrain", "no quick check in this campaign");
  }
  const json& check = ctx.data().value("check", json::object());
  auto task_id = redfish::intAt(check, "task_id");
  if (!task_id) return bootIntoCheck(env, ctx);
  auto task = inventory::getAgentTask(*env.life.deps.db, *task_id);
  if (!task) return StepOutcome::retry("inventory_error", task.error().message);
  if (task->state == "passed") return StepOutcome::next("undrain", "quick check passed");
  if (task->state == "failed" || task->state == "error") return checkFailed(env, *task);
  const auto deadline = env.after(timeAt(check, "booted_at").value_or(ctx.now()),
                                  env.settings.timings.quick_check_timeout);
  if (task->state == "cancelled" || ctx.now() >= deadline) {
    if (task->state == "pending" || task->state == "running") {
      (void)inventory::cancelAgentTask(*env.life.deps.db, task->id, "campaign",
                                       "no quick-check result in time");
    }
    return StepOutcome::fail(
        "quick_check_timeout",
        std::string("no quick-check result from the agent in time (it ") +
            (task->registered_at ? "registered but never reported" : "never came up") + ")",
        {{"task_id", task->id}});
  }
  return StepOutcome::waitUntil(deadline, "agent_result",
                                "quick check task " + std::to_string(task->id) + " " + task->state);
}

}  // namespace workflows::rollout

#include "wipe_task.hpp"

#include <nlohmann/json.hpp>

#include "workflows/decommission/wipe_result.hpp"
#include "workflows/decommission/workflow.hpp"

namespace provisioner::api {

common::Result<agent::Task> wireTask(const inventory::AgentTask& task) {
  agent::Task wire;
  wire.id = task.id;
  const auto spec = nlohmann::json::parse(task.spec_json, nullptr, false);
  if (task.kind == "wipe") {
    wire.kind = agent::TaskKind::kWipe;
    auto plan = agent::parseWipePlan(spec);
    if (!plan) return common::fail(common::internalError("stored wipe plan no longer parses"));
    wire.wipe = std::move(*plan);
    return wire;
  }
  wire.kind = agent::TaskKind::kBurnIn;
  auto plan = agent::parseBurnInPlan(spec);
  if (!plan) return common::fail(common::internalError("stored plan no longer parses"));
  wire.plan = std::move(*plan);
  return wire;
}

common::Result<FinishedTask> finishWipeTask(const ApiContext& ctx, const inventory::AgentTask& task,
                                            const agent::TaskResult& result,
                                            const std::string& raw_body) {
  // The service's coverage threshold (--wipe-min-gpu-coverage); the workflow judges nothing
  // again, it reads the verdict stored here.
  workflows::decommission::WipeCriteria criteria;
  criteria.min_gpu_coverage = ctx.boot.wipe_min_gpu_coverage;
  const auto now = ctx.clock ? ctx.clock->now() : std::chrono::system_clock::now();
  PROV_ASSIGN(auto outcome, workflows::decommission::recordWipeResult(*ctx.db, task, result,
                                                                      raw_body, criteria, now));
  return FinishedTask{outcome.state, outcome.verdict};
}

}  // namespace provisioner::api

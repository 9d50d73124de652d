#include "workflows/health_upkeep.hpp"

#include <chrono>

#include "inventory/gpu_health.hpp"

namespace workflows {
namespace {

StepOutcome maintain(inventory::Database& db, const HealthUpkeepOptions& options,
                     StepContext& ctx) {
  const auto now = std::chrono::time_point_cast<std::chrono::seconds>(ctx.now());
  auto done = inventory::maintainHealthHistory(db, now, options.retention);
  if (!done) return StepOutcome::retry("inventory_error", done.error().message);
  ctx.data()["last"] = {{"partitions_created", done->created},
                        {"partitions_dropped", done->dropped}};
  return StepOutcome::waitUntil(ctx.now() + options.interval, "upkeep_interval",
                                "health history kept: " + std::to_string(done->created.size()) +
                                    " partition(s) made, " + std::to_string(done->dropped.size()) +
                                    " dropped");
}

}  // namespace

WorkflowDef gpuHealthUpkeepWorkflow(inventory::DatabasePtr db, HealthUpkeepOptions options) {
  StepDef step;
  step.name = "maintain";
  step.run = [db, options](StepContext& ctx) { return maintain(*db, options, ctx); };
  step.max_attempts = 30;
  step.backoff_base = Duration(5000);
  step.backoff_cap = Duration(300000);
  WorkflowDef def;
  def.kind = kGpuHealthUpkeep;
  def.first_step = "maintain";
  def.steps = {step};
  return def;
}

common::Result<void> ensureHealthUpkeepRun(Engine& engine) {
  StartRequest request;
  request.kind = kGpuHealthUpkeep;
  request.subject = "fleet";
  request.actor = "service";
  PROV_TRY(engine.start(request));
  return common::success();
}

}  // namespace workflows

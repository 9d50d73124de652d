#include "workflows/fleet_run.hpp"

namespace workflows {

WorkflowDef fleetRunWorkflow(const std::string& kind, const std::string& step_name,
                             std::function<StepOutcome(StepContext&)> pass, Duration backoff_base,
                             Duration backoff_cap) {
  StepDef step;
  step.name = step_name;
  step.run = std::move(pass);
  step.max_attempts = 30;
  step.backoff_base = backoff_base;
  step.backoff_cap = backoff_cap;
  WorkflowDef def;
  def.kind = kind;
  def.first_step = step_name;
  def.steps = {step};
  return def;
}

common::Result<void> ensureFleetRun(Engine& engine, const std::string& kind) {
  StartRequest request;
  request.kind = kind;
  request.subject = "fleet";
  request.actor = "service";
  PROV_TRY(engine.start(request));
  return common::success();
}

}  // namespace workflows

// A step definition bound to its workflow's shared environment: what every workflow definition
// (lifecycle, firmware update, decommission) builds its step list from.
#pragma once

#include <memory>
#include <string>

#include "workflows/step.hpp"

namespace workflows {

template <class Env>
StepDef bindStep(const std::shared_ptr<const Env>& env, std::string name,
                 StepOutcome (*fn)(const Env&, StepContext&), int max_attempts,
                 Duration backoff_base, Duration backoff_cap) {
  StepDef def;
  def.name = std::move(name);
  def.run = [env, fn](StepContext& ctx) { return fn(*env, ctx); };
  def.max_attempts = max_attempts;
  def.backoff_base = backoff_base;
  def.backoff_cap = backoff_cap;
  return def;
}

}  // namespace workflows

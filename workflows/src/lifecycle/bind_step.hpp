// A step definition bound to its workflow's shared environment: what every workflow definition
// (lifecycle, firmware update, decommission) builds its step list from.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <type_traits>

#include "workflows/lifecycle.hpp"
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

// The backoff of steps that talk to a BMC: one that is rebooting recovers within minutes, so 2 s
// doubling up to 2 min; one out of sessions (patient retries: sessions leaked by a killed
// client expire after the BMC's SessionTimeout, commonly 30 min) is waited for 30 min before
// its retries spend the budget. Real-world durations, divided by the time scale.
struct StepBackoff {
  Duration base;
  Duration cap;
  Duration patience{0};
};

inline StepBackoff bmcStepBackoff(const LifecycleTimings& t) {
  return {t.scaled(Duration(2000)), t.scaled(Duration(120000)), t.scaled(Duration(1800000))};
}

template <class Env>
StepDef bindStep(const std::shared_ptr<const Env>& env, std::string name,
                 StepOutcome (*fn)(const Env&, StepContext&), int max_attempts,
                 StepBackoff backoff) {
  StepDef def = bindStep(env, std::move(name), fn, max_attempts, backoff.base, backoff.cap);
  def.patience = backoff.patience;
  return def;
}

// The same for a step that needs more than its environment (a lambda with captures).
template <class Env>
StepDef bindStep(const std::shared_ptr<const Env>& env, std::string name,
                 std::function<StepOutcome(const Env&, StepContext&)> fn, int max_attempts,
                 std::type_identity_t<StepBackoff> backoff) {
  StepDef def;
  def.name = std::move(name);
  def.run = [env, fn = std::move(fn)](StepContext& ctx) { return fn(*env, ctx); };
  def.max_attempts = max_attempts;
  def.backoff_base = backoff.base;
  def.backoff_cap = backoff.cap;
  def.patience = backoff.patience;
  return def;
}

}  // namespace workflows

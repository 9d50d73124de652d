#include "workflows/step.hpp"

namespace workflows {

StepOutcome StepOutcome::next(std::string step, std::string message) {
  StepOutcome o;
  o.kind = Kind::kNext;
  o.step = std::move(step);
  o.message = std::move(message);
  return o;
}

StepOutcome StepOutcome::waitUntil(TimePoint until, std::string waiting_for, std::string message) {
  StepOutcome o;
  o.kind = Kind::kWait;
  o.until = until;
  o.waiting_for = std::move(waiting_for);
  o.message = std::move(message);
  return o;
}

StepOutcome StepOutcome::retry(std::string reason, std::string message,
                               std::optional<Duration> after) {
  StepOutcome o;
  o.kind = Kind::kRetry;
  o.reason = std::move(reason);
  o.message = std::move(message);
  o.after = after;
  return o;
}

StepOutcome StepOutcome::fail(std::string reason, std::string message, nlohmann::json detail) {
  StepOutcome o;
  o.kind = Kind::kFail;
  o.reason = std::move(reason);
  o.message = std::move(message);
  o.detail = std::move(detail);
  return o;
}

StepOutcome StepOutcome::succeed(std::string message) {
  StepOutcome o;
  o.kind = Kind::kSucceed;
  o.message = std::move(message);
  return o;
}

void StepContext::attachNode(inventory::Id node_id, std::string site, std::string rack) {
  run_.node_id = node_id;
  run_.site = std::move(site);
  run_.rack = std::move(rack);
  node_changed_ = true;
}

void StepContext::event(std::string kind, std::string message, nlohmann::json detail) {
  events_.push_back({std::move(kind), std::move(message), std::move(detail)});
}

bool StepContext::fence() {
  return fence_.confirm ? fence_.confirm() : true;
}

bool StepContext::recordIntent() {
  return fence_.record ? fence_.record(data_) : true;
}

StepDef withSideEffects(StepDef step, std::vector<std::string> effects) {
  step.side_effects = std::move(effects);
  return step;
}

}  // namespace workflows

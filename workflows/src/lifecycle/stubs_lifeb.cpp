// TEMPORARY (delete at merge with branch lifeb): the steps another helper writes, passing
// straight through so this branch links and the workflow can be assembled.
#include "lifecycle_steps.hpp"

namespace workflows::lifecycle {

StepOutcome configureStep(const Env&, StepContext&) {
  return StepOutcome::next("firmware");
}
StepOutcome firmwareStep(const Env&, StepContext&) {
  return StepOutcome::next("imaging");
}
StepOutcome imagingStep(const Env&, StepContext&) {
  return StepOutcome::next("burn_in");
}
StepOutcome burnInStep(const Env&, StepContext&) {
  return StepOutcome::next("handoff");
}

}  // namespace workflows::lifecycle

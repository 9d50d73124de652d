// The engine's API: registering workflows, starting runs, signals and operator actions.
#include "workflows/engine.hpp"

#include <unistd.h>

#include <cstdio>
#include <stdexcept>

#include "engine_impl.hpp"

namespace workflows {
namespace {

std::string defaultOwner() {
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) != 0) std::snprintf(host, sizeof host, "unknown");
  std::random_device random;
  char suffix[8];
  std::snprintf(suffix, sizeof suffix, "%04x", static_cast<unsigned>(random() & 0xffffu));
  return std::string(host) + ":" + std::to_string(getpid()) + ":" + suffix;
}

bool validKind(const std::string& kind) {
  if (kind.empty() || kind.size() > 64 || kind[0] < 'a' || kind[0] > 'z') return false;
  for (char c : kind) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  }
  return true;
}

void require(bool condition, const std::string& what) {
  if (!condition) throw std::logic_error("registerWorkflow: " + what);
}

std::unique_ptr<RegisteredWorkflow> validated(WorkflowDef def) {
  require(validKind(def.kind), "kind '" + def.kind + "' must match [a-z][a-z0-9_]{0,63}");
  require(!def.steps.empty(), def.kind + " has no steps");
  auto registered = std::make_unique<RegisteredWorkflow>();
  registered->def = std::move(def);
  const WorkflowDef& d = registered->def;
  for (const StepDef& step : d.steps) {
    require(!step.name.empty(), d.kind + " has a step without a name");
    require(static_cast<bool>(step.run), d.kind + "." + step.name + " has no function");
    require(step.max_attempts >= 1, d.kind + "." + step.name + " needs max_attempts >= 1");
    require(step.backoff_base.count() >= 0 && step.backoff_cap >= step.backoff_base,
            d.kind + "." + step.name + " needs 0 <= backoff_base <= backoff_cap");
    require(registered->steps.emplace(step.name, &step).second,
            d.kind + " has two steps named " + step.name);
  }
  require(registered->step(d.first_step) != nullptr,
          d.kind + " first_step '" + d.first_step + "' is not one of its steps");
  require(d.failure_step.empty() || registered->step(d.failure_step) != nullptr,
          d.kind + " failure_step '" + d.failure_step + "' is not one of its steps");
  return registered;
}

// A run that failed in its failure step is retried where the failure began.
std::string defaultRetryStep(const RegisteredWorkflow& wf, const inventory::WorkflowRun& run) {
  if (wf.def.failure_step.empty() || run.step != wf.def.failure_step) return run.step;
  auto data = nlohmann::json::parse(run.context_json, nullptr, false);
  if (!data.is_object()) return run.step;
  auto failure = data.find("failure");
  if (failure == data.end() || !failure->is_object()) return run.step;
  auto step = failure->find("step");
  if (step == failure->end() || !step->is_string()) return run.step;
  return step->get<std::string>();
}

}  // namespace

Engine::Engine(inventory::DatabasePtr db, std::shared_ptr<Clock> clock, EngineOptions options)
    : impl_(std::make_unique<Impl>()) {
  impl_->db = std::move(db);
  impl_->clock = clock ? std::move(clock) : systemClock();
  if (options.owner.empty()) options.owner = defaultOwner();
  if (options.workers == 0) options.workers = 1;
  if (options.claim_batch == 0) options.claim_batch = 1;
  impl_->options = std::move(options);
}

Engine::~Engine() {
  stop();
}

void Engine::registerWorkflow(WorkflowDef def) {
  {
    std::lock_guard lock(impl_->mutex);
    require(!impl_->running, "called after start()");
  }
  auto registered = validated(std::move(def));
  const std::string kind = registered->def.kind;
  require(impl_->workflows.emplace(kind, std::move(registered)).second,
          "workflow " + kind + " registered twice");
}

const RegisteredWorkflow* Engine::Impl::find(const std::string& kind) const {
  auto it = workflows.find(kind);
  return it == workflows.end() ? nullptr : it->second.get();
}

common::Result<StartResult> Engine::start(const StartRequest& request) {
  const RegisteredWorkflow* wf = impl_->find(request.kind);
  if (wf == nullptr) {
    return common::invalidArgument("unknown_workflow", "no workflow named " + request.kind, "kind");
  }
  const std::string step = request.at_step.value_or(wf->def.first_step);
  if (wf->step(step) == nullptr) {
    return common::invalidArgument("unknown_step", request.kind + " has no step " + step,
                                   "at_step");
  }
  if (!request.context.is_object()) {
    return common::invalidArgument("invalid_context", "context must be a JSON object", "context");
  }
  inventory::NewWorkflowRun run;
  run.kind = request.kind;
  run.subject = request.subject;
  run.step = step;
  run.context_json = request.context.dump();
  run.node_id = request.node_id;
  run.site = request.site;
  run.rack = request.rack;
  run.created_by = request.actor;
  run.now = impl_->clock->now();
  PROV_ASSIGN(auto created, inventory::createWorkflowRun(*impl_->db, run));
  if (created.created) impl_->poke();
  return StartResult{created.run.id, created.created};
}

common::Result<void> Engine::signal(inventory::Id run_id) {
  PROV_TRY(inventory::signalWorkflowRun(*impl_->db, run_id, impl_->clock->now()));
  impl_->poke();
  return common::success();
}

common::Result<void> Engine::signalNode(const std::string& kind, inventory::Id node_id) {
  PROV_TRY(inventory::signalNodeRun(*impl_->db, kind, node_id, impl_->clock->now()));
  impl_->poke();
  return common::success();
}

common::Result<void> Engine::retry(inventory::Id run_id, const std::string& actor,
                                   const std::optional<std::string>& step) {
  PROV_ASSIGN(auto run, inventory::getWorkflowRun(*impl_->db, run_id));
  const RegisteredWorkflow* wf = impl_->find(run.kind);
  if (wf == nullptr) {
    return common::invalidArgument("unknown_workflow", "no workflow named " + run.kind, "kind");
  }
  const std::string target = step.value_or(defaultRetryStep(*wf, run));
  if (wf->step(target) == nullptr) {
    return common::invalidArgument("unknown_step", run.kind + " has no step " + target, "step");
  }
  PROV_TRY(inventory::reopenWorkflowRun(*impl_->db, run_id, target, actor, impl_->clock->now()));
  impl_->poke();
  return common::success();
}

common::Result<void> Engine::cancel(inventory::Id run_id, const std::string& actor,
                                    const std::string& reason) {
  PROV_TRY(inventory::cancelWorkflowRun(*impl_->db, run_id, actor, reason, impl_->clock->now()));
  return common::success();
}

EngineStats Engine::stats() const {
  EngineStats s;
  s.steps_executed = impl_->steps_executed.load();
  s.outcomes_lost = impl_->outcomes_lost.load();
  s.claim_round_trips = impl_->claim_round_trips.load();
  s.claimed = impl_->claimed.load();
  s.lease_renewals = impl_->lease_renewals.load();
  s.renewal_round_trips = impl_->renewal_round_trips.load();
  s.fenced = impl_->fenced.load();
  s.intents_recorded = impl_->intents_recorded.load();
  return s;
}

void Engine::renderMetrics(std::string& out) const {
  impl_->metrics.render(out, stats());
}

const std::string& Engine::owner() const {
  return impl_->options.owner;
}

}  // namespace workflows

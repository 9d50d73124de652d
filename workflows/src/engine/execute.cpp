// One step of one claimed run: call the step (its lease renewed by the heartbeat meanwhile),
// turn its outcome into the run's next state and timeline entries, and write them fenced by the
// lease epoch the run was claimed with.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <functional>

#include "engine_impl.hpp"

namespace workflows {
namespace {

using inventory::WorkflowRun;
using Kind = StepOutcome::Kind;

double secondsBetween(TimePoint from, TimePoint to) {
  return std::chrono::duration<double>(to - from).count();
}

RunInfo runInfo(const WorkflowRun& run) {
  RunInfo info;
  info.id = run.id;
  info.kind = run.kind;
  info.subject = run.subject;
  info.step = run.step;
  info.attempt = run.attempt;
  info.node_id = run.node_id;
  info.site = run.site;
  info.rack = run.rack;
  info.created_by = run.created_by;
  return info;
}

// Calls the step; an exception is a failure of the run, never of the replica.
StepOutcome callStep(const StepDef& step, StepContext& ctx) {
  try {
    return step.run(ctx);
  } catch (const std::exception& e) {
    return StepOutcome::fail("step_exception", e.what());
  } catch (...) {
    return StepOutcome::fail("step_exception", "the step threw a non-standard exception");
  }
}

const char* outcomeName(Kind kind) {
  switch (kind) {
    case Kind::kNext:
      return "next";
    case Kind::kWait:
      return "wait";
    case Kind::kRetry:
      return "retry";
    case Kind::kFail:
      return "fail";
    case Kind::kSucceed:
      return "succeed";
  }
  return "unknown";
}

// What the planner needs of the engine.
struct PlanEnv {
  const std::string& owner;
  TimePoint now;
  detail::StepMetrics& metrics;
  std::function<Duration(const StepDef&, int)> backoff;
};

// Builds the completion of one execution and what the metrics learn from it.
class Planner {
 public:
  Planner(PlanEnv env, const RegisteredWorkflow* wf, const WorkflowRun& run, StepContext& ctx,
          double duration_ms)
      : engine_(std::move(env)), wf_(wf), run_(run), ctx_(ctx), duration_ms_(duration_ms) {
    now_ = engine_.now;
    c_.run_id = run.id;
    c_.owner = engine_.owner;
    c_.epoch = run.lease_epoch;
    c_.wakeups_seen = run.wakeups;
    c_.step = run.step;
    c_.attempt = run.attempt;
    c_.next_run_at = now_;
    c_.node_id = ctx.run().node_id;
    c_.site = ctx.run().site;
    c_.rack = ctx.run().rack;
    c_.now = now_;
    for (const auto& e : ctx.events()) addEvent(e.kind, e.message, e.detail);
  }

  void plan(StepOutcome outcome, bool may_redirect) {
    outcome_ = outcomeName(outcome.kind);
    switch (outcome.kind) {
      case Kind::kNext:
        return next(outcome);
      case Kind::kWait:
        return wait(outcome);
      case Kind::kRetry:
        return retry(outcome);
      case Kind::kFail:
        return fail(outcome, may_redirect);
      case Kind::kSucceed:
        return succeed(outcome);
    }
  }

  // A context that could not be read is written back as it was, for people to look at.
  void keepContext(std::string raw) { raw_context_ = std::move(raw); }

  const inventory::StepCompletion& completion() const { return c_; }

  // After the outcome was written: what /metrics shows.
  void record() {
    const std::string& kind = run_.kind;
    engine_.metrics.countOutcome(kind, run_.step, outcome_);
    if (!failure_reason_.empty()) engine_.metrics.countFailure(kind, run_.step, failure_reason_);
    if (left_step_) {
      engine_.metrics.observeDuration(kind, run_.step, secondsBetween(run_.step_started_at, now_));
    }
  }

  bool dueNow() const { return c_.state == "running" && c_.next_run_at <= now_; }

 private:
  void addEvent(const std::string& kind, const std::string& message, const nlohmann::json& detail,
                std::optional<double> duration_ms = std::nullopt) {
    inventory::WorkflowEventRecord e;
    e.at_time = now_;
    e.actor = engine_.owner;
    e.step = run_.step;
    e.kind = kind;
    e.message = message;
    e.detail_json = detail.is_object()
                        ? detail.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)
                        : "{}";
    e.duration_ms = duration_ms;
    c_.events.push_back(std::move(e));
  }

  void leaveStep() {
    left_step_ = true;
    nlohmann::json detail = {{"step_seconds", secondsBetween(run_.step_started_at, now_)}};
    if (!c_.step.empty() && c_.step != run_.step) detail["next"] = c_.step;
    addEvent("step_completed", "step " + run_.step + " completed", detail, duration_ms_);
  }

  void next(const StepOutcome& o) {
    if (wf_ == nullptr || wf_->step(o.step) == nullptr) {
      return fail(
          StepOutcome::fail("unknown_step",
                            "step " + run_.step + " named an unknown next step '" + o.step + "'"),
          false);
    }
    c_.step = o.step;
    c_.attempt = 0;
    c_.step_changed = true;
    c_.waiting_for.clear();
    ctx_.data().erase("patient_retry");
    c_.context_json = data();
    leaveStep();
    if (!o.message.empty()) c_.events.back().message = o.message;
  }

  void wait(const StepOutcome& o) {
    c_.is_wait = true;
    c_.next_run_at = o.until;
    // A wait always shows what it waits for; re-polls of the same wait add nothing.
    c_.waiting_for = o.waiting_for.empty() ? "timer" : o.waiting_for;
    c_.context_json = data();
    if (c_.waiting_for != run_.waiting_for) {
      nlohmann::json detail = {{"waiting_for", c_.waiting_for},
                               {"in_seconds", secondsBetween(now_, o.until)}};
      addEvent("waiting", o.message.empty() ? "waiting for " + c_.waiting_for : o.message, detail,
               duration_ms_);
    }
  }

  // A patient retry within the step's patience: counted apart, in the run's context under
  // "patient_retry" ({step, since_ms, tries}), never against the budget. False once the
  // patience is spent (the retry then counts as any other).
  bool patientRetry(const StepOutcome& o, const StepDef& step) {
    if (!o.patient || step.patience <= Duration::zero()) return false;
    const auto now_ms = std::chrono::duration_cast<Duration>(now_.time_since_epoch()).count();
    nlohmann::json& mark = ctx_.data()["patient_retry"];
    if (!mark.is_object() || mark.value("step", "") != run_.step) {
      mark = {{"step", run_.step}, {"since_ms", now_ms}, {"tries", 0}};
    }
    if (Duration(now_ms - mark.value("since_ms", now_ms)) >= step.patience) return false;
    const int tries = mark.value("tries", 0) + 1;
    mark["tries"] = tries;
    const Duration delay = o.after.value_or(engine_.backoff(step, std::min(tries - 1, 20)));
    c_.next_run_at = now_ + delay;
    c_.waiting_for.clear();
    c_.context_json = data();
    nlohmann::json detail = {{"reason", o.reason},
                             {"attempt", run_.attempt},
                             {"patient_tries", tries},
                             {"delay_ms", delay.count()},
                             {"patience_ms", step.patience.count()}};
    addEvent("retry", o.message.empty() ? "retry after " + o.reason : o.message, detail,
             duration_ms_);
    return true;
  }

  void retry(const StepOutcome& o) {
    const StepDef* step = wf_->step(run_.step);
    if (patientRetry(o, *step)) return;
    const int tries = run_.attempt + 1;
    if (tries >= step->max_attempts) {
      nlohmann::json detail = {
          {"last_reason", o.reason}, {"attempts", tries}, {"last_message", o.message}};
      std::string message =
          "step " + run_.step + " failed " + std::to_string(tries) + " tries; last: " + o.reason;
      if (!o.message.empty()) message += ": " + o.message;
      return fail(StepOutcome::fail("retry_budget_exhausted", message, detail), true);
    }
    const Duration delay = o.after.value_or(engine_.backoff(*step, run_.attempt));
    c_.attempt = tries;
    c_.next_run_at = now_ + delay;
    c_.waiting_for.clear();
    c_.context_json = data();
    nlohmann::json detail = {{"reason", o.reason}, {"attempt", tries}, {"delay_ms", delay.count()}};
    addEvent("retry", o.message.empty() ? "retry after " + o.reason : o.message, detail,
             duration_ms_);
  }

  void fail(const StepOutcome& o, bool may_redirect) {
    outcome_ = "fail";
    failure_reason_ = o.reason;
    nlohmann::json failure = {
        {"step", run_.step}, {"reason", o.reason}, {"message", o.message}, {"detail", o.detail}};
    const std::string& failure_step = wf_ ? wf_->def.failure_step : std::string();
    left_step_ = true;
    if (may_redirect && !failure_step.empty() && run_.step != failure_step) {
      ctx_.data()["failure"] = failure;
      c_.step = failure_step;
      c_.attempt = 0;
      c_.step_changed = true;
      c_.waiting_for.clear();
      c_.context_json = data();
      failure["to_step"] = failure_step;
      addEvent("failed", o.message, failure, duration_ms_);
      return;
    }
    c_.state = "failed";
    c_.reason = o.reason;
    c_.detail_json = o.detail.is_object() ? o.detail.dump() : "{}";
    c_.waiting_for.clear();
    c_.context_json = data();
    addEvent("failed", o.message, failure, duration_ms_);
  }

  void succeed(const StepOutcome& o) {
    c_.state = "succeeded";
    c_.waiting_for.clear();
    c_.context_json = data();
    leaveStep();
    addEvent("succeeded", o.message.empty() ? run_.kind + " succeeded" : o.message,
             nlohmann::json::object());
  }

  std::string data() const {
    if (raw_context_) return *raw_context_;
    return ctx_.data().dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  }

  PlanEnv engine_;
  const RegisteredWorkflow* wf_;
  const WorkflowRun& run_;
  StepContext& ctx_;
  double duration_ms_;
  TimePoint now_;
  inventory::StepCompletion c_;
  std::string outcome_;
  std::string failure_reason_;
  bool left_step_ = false;
  std::optional<std::string> raw_context_;
};

}  // namespace

Duration Engine::Impl::backoff(const StepDef& step, int attempt) {
  const double base = static_cast<double>(step.backoff_base.count());
  const double capped =
      std::min(static_cast<double>(step.backoff_cap.count()), base * std::pow(2.0, attempt));
  double factor = 1.0;
  {
    std::lock_guard lock(rng_mutex);
    factor = std::uniform_real_distribution<double>(0.8, 1.2)(rng);
  }
  return Duration(static_cast<Duration::rep>(capped * factor));
}

void Engine::Impl::execute(const WorkflowRun& run) {
  const auto started = std::chrono::steady_clock::now();
  const RegisteredWorkflow* wf = find(run.kind);
  const StepDef* step = wf ? wf->step(run.step) : nullptr;
  auto data = nlohmann::json::parse(run.context_json, nullptr, false);
  const bool bad_context = data.is_discarded() || !data.is_object();
  StepContext ctx(runInfo(run), bad_context ? nlohmann::json::object() : std::move(data),
                  clock->now());
  // In flight until its outcome is written: the heartbeat renews its lease meanwhile.
  const auto execution = in_flight.add({run.id, run.lease_epoch}, run.step);
  struct Done {
    detail::InFlightLeases& leases;
    const detail::InFlightLeases::Handle& execution;
    ~Done() { leases.remove(execution); }
  } done{in_flight, execution};
  ctx.installFence(fenceFor(execution));
  ctx.installClock([c = clock] { return c->now(); });

  std::optional<StepOutcome> early;
  if (step == nullptr) {
    early = StepOutcome::fail("unknown_step",
                              "workflow " + run.kind + " has no step '" + run.step + "'");
  } else if (bad_context) {
    early = StepOutcome::fail("bad_context", "the run's context is not a JSON object");
  }
  StepOutcome outcome = early ? *early : callStep(*step, ctx);
  if (options.die_before_commit && options.die_before_commit(ctx.run(), outcome)) {
    spdlog::warn("workflow run {}: kill point after step {}: outcome not written", run.id,
                 run.step);
    return;
  }
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();

  PlanEnv env{options.owner, clock->now(), metrics,
              [this](const StepDef& s, int attempt) { return backoff(s, attempt); }};
  Planner planner(std::move(env), wf, run, ctx, ms);
  if (bad_context) planner.keepContext(run.context_json);
  planner.plan(std::move(outcome), !early.has_value());
  steps_executed.fetch_add(1);

  if (in_flight.beginWriting(execution)) {
    // The heartbeat or the step's own fence found the lease gone: the write would be refused.
    outcomes_lost.fetch_add(1);
    spdlog::info("workflow run {}: outcome of step {} dropped, the lease was lost", run.id,
                 run.step);
    return;
  }
  auto written = inventory::completeStep(*db, planner.completion());
  if (!written) {
    // The lease expires and a replica (maybe this one) runs the step again.
    spdlog::warn("workflow run {}: cannot write the outcome of step {}: {}", run.id, run.step,
                 written.error().message);
    return;
  }
  if (!*written) {
    outcomes_lost.fetch_add(1);
    spdlog::info("workflow run {}: outcome of step {} dropped, the lease moved on", run.id,
                 run.step);
    return;
  }
  planner.record();
  if (planner.dueNow()) poke();
}

}  // namespace workflows

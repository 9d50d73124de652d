// What a workflow is made of: short, idempotent steps. A step looks at the world (Redfish, the
// inventory), acts at most once, and says what happens next. It never sleeps: a wait is a
// persisted timer, so a thousand rebooting nodes cost one row each, not a thread each.
#pragma once

#include <nlohmann/json.hpp>

#include <algorithm>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "inventory/types.hpp"
#include "workflows/clock.hpp"

namespace workflows {

struct StepOutcome {
  enum class Kind {
    kNext,     // go on with `step` (now)
    kWait,     // run this step again at `until`, or sooner when the run is signalled
    kRetry,    // this try failed (`reason`); run it again after backoff while the budget lasts
    kFail,     // the run cannot succeed (`reason`, `detail`); goes to the failure step if any
    kSucceed,  // the run is done
  };
  Kind kind = Kind::kNext;
  std::string step;               // kNext
  TimePoint until{};              // kWait
  std::string waiting_for;        // kWait: what it waits for, for operators ("agent_result")
  std::optional<Duration> after;  // kRetry: overrides the step's backoff for this try
  // kRetry: the trouble clears by itself in time (a BMC out of sessions frees them when they
  // expire): within the step's `patience` the try spends none of the budget (StepDef).
  bool patient = false;
  std::string reason;   // kRetry / kFail: a short code, e.g. "serial_mismatch"
  std::string message;  // for the timeline: what a person reads
  nlohmann::json detail = nlohmann::json::object();  // evidence: serials, measurements, URLs

  static StepOutcome next(std::string step, std::string message = {});
  static StepOutcome waitUntil(TimePoint until, std::string waiting_for, std::string message = {});
  static StepOutcome retry(std::string reason, std::string message,
                           std::optional<Duration> after = std::nullopt);
  static StepOutcome fail(std::string reason, std::string message,
                          nlohmann::json detail = nlohmann::json::object());
  static StepOutcome succeed(std::string message = {});
};

// A run as a step sees it.
struct RunInfo {
  inventory::Id id = 0;
  std::string kind;
  std::string subject;
  std::string step;
  int attempt = 0;  // failed tries of this step so far
  std::optional<inventory::Id> node_id;
  std::string site, rack;
  std::string created_by;
};

// How a step reaches its run's lease while it executes; the engine installs one per execution.
// Each call is one round trip fenced by the (owner, epoch) the run was claimed with, and renews
// the lease. False: the lease is lost (another replica holds the run, or it was cancelled), or
// the database could not be reached.
struct LeaseFence {
  std::function<bool()> confirm;                              // StepContext::fence()
  std::function<bool(const nlohmann::json& context)> record;  // StepContext::recordIntent()
};

// Handed to a step. `data` is the run's JSON context: whatever the step leaves in it is written
// with the outcome, in the same transaction as the step's events.
class StepContext {
 public:
  StepContext(RunInfo run, nlohmann::json data, TimePoint now)
      : run_(std::move(run)), data_(std::move(data)), now_(now) {}

  const RunInfo& run() const { return run_; }
  nlohmann::json& data() { return data_; }
  const nlohmann::json& data() const { return data_; }
  // When the step began: one value for all its decisions.
  TimePoint now() const { return now_; }
  // The clock now (never before now()), for stamping when something happened outside during
  // the step: an update the BMC accepted after a call that hung for 30 s started 30 s after
  // now(), and a deadline counted from now() would be 30 s short. Without an installed clock
  // (a StepContext built in a unit test), now().
  TimePoint current() const { return clock_ ? std::max(now_, clock_()) : now_; }
  void installClock(std::function<TimePoint()> clock) { clock_ = std::move(clock); }

  // Ties the run to a node (once it exists) and its place: the timeline and the admission
  // slots use them. Written with the outcome.
  void attachNode(inventory::Id node_id, std::string site, std::string rack);
  // An extra timeline entry written with the outcome (the engine writes the step's own).
  void event(std::string kind, std::string message,
             nlohmann::json detail = nlohmann::json::object());

  // Dangerous actions (flashing, erasing) must not run on two replicas. fence(): this replica
  // still holds the run (and its lease is renewed). recordIntent(): writes data() to the run row
  // now, fenced the same way, so a replica that resumes the run sees the intent. A step calls
  // recordIntent() right before the irreversible call and, when it returns false, does not act
  // and returns a retry (its outcome is dropped anyway). Without an installed fence (a
  // StepContext built in a unit test) both return true.
  bool fence();
  bool recordIntent();
  void installFence(LeaseFence fence) { fence_ = std::move(fence); }

  struct PendingEvent {
    std::string kind, message;
    nlohmann::json detail;
  };
  const std::vector<PendingEvent>& events() const { return events_; }
  bool nodeChanged() const { return node_changed_; }

 private:
  RunInfo run_;
  nlohmann::json data_;
  TimePoint now_;
  std::function<TimePoint()> clock_;
  std::vector<PendingEvent> events_;
  bool node_changed_ = false;
  LeaseFence fence_;
};

struct StepDef {
  std::string name;
  std::function<StepOutcome(StepContext&)> run;
  int max_attempts = 5;         // tries, the first included, before a kRetry becomes a failure
  Duration backoff_base{1000};  // doubled per failed try, jittered, capped
  Duration backoff_cap{60000};
  // What the step changes outside the service's database (a BMC, a host, the scheduler, a
  // signature), by name. docs/workflows.md lists each with its intent record and resume check;
  // a test fails when a registered step is in neither that table nor its list of steps
  // without side effects.
  std::vector<std::string> side_effects = {};
  // How long patient retries (StepOutcome::patient) go on without spending the budget, from the
  // first of them in this step; their delays double from backoff_base up to backoff_cap as usual.
  // Zero: a patient retry is an ordinary one.
  Duration patience{0};
};

// `step` with its side effects declared.
StepDef withSideEffects(StepDef step, std::vector<std::string> effects);

struct WorkflowDef {
  std::string kind;
  std::string first_step;
  std::vector<StepDef> steps;
  // Where a failure goes (e.g. "quarantine"), with data()["failure"] = {"step", "reason",
  // "message", "detail"}; empty: the run ends failed at once. A failure inside the failure step
  // ends the run failed.
  std::string failure_step;
};

}  // namespace workflows

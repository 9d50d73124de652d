// A bench for the configure, firmware, imaging and burn-in steps: one simulated BMC served
// in-process over plain HTTP, a migrated PostgreSQL with its node and hardware profile, and the
// steps called one run at a time with the run's data carried between them, as the engine would.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "inventory/database.hpp"
#include "inventory/types.hpp"
#include "lifecycle/lifecycle_steps.hpp"
#include "redfish/transport.hpp"
#include "simulator/fleet.hpp"
#include "workflows/clock.hpp"

namespace lifecycle_b {

// "kind K step S reason R waiting_for W: message", for INFO().
std::string describe(const workflows::StepOutcome& o);

// Evaluates `outcome` once (a step call runs once), explains it, and requires its kind.
#define CHECK_OUTCOME(outcome, expected_kind)          \
  do {                                                 \
    const auto& checked_outcome_ = (outcome);          \
    INFO(::lifecycle_b::describe(checked_outcome_));   \
    REQUIRE(checked_outcome_.kind == (expected_kind)); \
  } while (false)

using StepFn = std::function<workflows::StepOutcome(const workflows::lifecycle::Env&,
                                                    workflows::StepContext&)>;

struct BenchOptions {
  std::string profile = "dgx-h100";  // the simulator's profile
  std::string system_path = "/redfish/v1/Systems/DGX";
  nlohmann::json bios = nlohmann::json::object();
  nlohmann::json min_firmware = nlohmann::json::array();
  nlohmann::json faults = nlohmann::json::object();  // the BMC's faults (faults.hpp JSON)
};

class Bench {
 public:
  explicit Bench(BenchOptions options = {});
  ~Bench();

  // Runs `step` once against the run's data as it stands now; the data it leaves is kept.
  workflows::StepOutcome run(const std::string& name, const StepFn& step);
  // Kill points: `step` runs as a replica that dies before its outcome is written, so only what
  // its recordIntent() calls wrote to the run survives (data() becomes the last of them; the
  // step's events are lost). runAndDie: dies after the step returned, i.e. after its calls to the
  // BMC. runAndDieAtIntent: dies inside the `nth` recordIntent() (1-based), right after the
  // write, so the call that intent announces is never sent. Returns the number of intents
  // recorded.
  int runAndDie(const std::string& name, const StepFn& step);
  // Runs `step` as if a call it makes to the BMC hung for `stall`: what it stamps with
  // ctx.current() is `stall` after its start, and both clocks have moved on by `stall` when it
  // returns.
  workflows::StepOutcome runStalled(const std::string& name, const StepFn& step,
                                    workflows::Duration stall);
  int runAndDieAtIntent(const std::string& name, const StepFn& step, int nth);
  // Dies inside the `nth` recordIntent() before its write reaches the run: the calls made
  // before it were sent, its intent is lost (the last one kept is the one before).
  int runAndDieBeforeIntent(const std::string& name, const StepFn& step, int nth);
  nlohmann::json& data() { return data_; }
  const std::vector<std::string>& events() const { return events_; }

  nlohmann::json snapshot() const;
  // "METHOD path" of every request the steps sent, first attempts only, in order.
  std::vector<std::string> requests() const;
  std::size_t requestCount(const std::string& method, const std::string& path_part) const;
  void patchFaults(const nlohmann::json& patch);
  std::string nodeState() const;
  void advance(workflows::Duration by);  // the engine's clock and the simulator's together

  inventory::Database& db() { return *db_; }
  inventory::Id nodeId() const { return node_id_; }
  workflows::lifecycle::Env& env() { return env_; }

 private:
  workflows::RunInfo runInfo(const std::string& step) const;
  int killedRun(const std::string& name, const StepFn& step, int die_at_intent,
                bool intent_written = true);

  inventory::DatabasePtr db_;
  std::unique_ptr<sim::Fleet> fleet_;
  std::shared_ptr<redfish::Transport> transport_;
  std::shared_ptr<workflows::FakeClock> clock_;
  workflows::lifecycle::Env env_;
  nlohmann::json data_;
  std::vector<std::string> events_;
  inventory::Id node_id_ = 0;
  std::string bmc_id_;
  struct Trace {
    mutable std::mutex mutex;
    std::vector<std::string> requests;
  };
  std::shared_ptr<Trace> trace_ = std::make_shared<Trace>();
};

}  // namespace lifecycle_b

// Shared by the lifecycle step tests: a migrated fresh database, an in-process simulated fleet
// of BMCs (plain HTTP, fast simulated time), a purchase order and a hardware profile for it, a
// Redfish transport and the lifecycle Env over all of them. Steps are called directly (no
// engine): drive() re-runs a step while it waits, like the engine would.
#pragma once

#include <memory>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/secret_box.hpp"
#include "inventory/database.hpp"
#include "inventory/types.hpp"
#include "lifecycle/lifecycle_steps.hpp"
#include "redfish/transport.hpp"
#include "simulator/fleet.hpp"
#include "workflows/clock.hpp"

namespace lifecycle_test {

struct FixtureOptions {
  int nodes = 2;  // BMCs "r01-n01", "r01-n02", ... in rack "r01"
  std::string profile = "dgx-h100";
  // The simulator's clock (power transitions, tasks). Sessions expire in simulated time too
  // (DGX: 30 s), so a scale far above 20 logs a session out between two requests of a slow
  // (sanitizer) build.
  double sim_time_scale = 20;
  double lifecycle_time_scale = 1000;  // LifecycleTimings::time_scale: waits of milliseconds
  std::set<int> unordered;             // 1-based node numbers left off the purchase order
  bool tls = false;
};

class LifecycleFixture {
 public:
  explicit LifecycleFixture(FixtureOptions options = {});
  ~LifecycleFixture();
  LifecycleFixture(const LifecycleFixture&) = delete;
  LifecycleFixture& operator=(const LifecycleFixture&) = delete;

  // "r01-n01" for 1.
  static std::string bmcId(int number);
  sim::BmcEndpoint bmc(int number) const;
  // The run context a DHCP trigger makes for this BMC: subject bmc:<mac>, data with
  // "bmc_address", "bmc_mac" and "base_url" (the simulator's http:// URL).
  workflows::StepContext context(int number) const;
  // Merge patch of simulator faults (faults.hpp JSON form) on one BMC.
  void patchFaults(int number, const nlohmann::json& patch);
  nlohmann::json snapshot(int number) const;
  // First column of the first row as text ("" when no row, "<null>" for NULL).
  std::string scalar(const std::string& sql) const;
  // BMC `number` as a node in service (`state`, model `model`) with what the lifecycle learnt of
  // its BMC, where workflows look for it (a finished node_lifecycle run); the node's id.
  inventory::Id addReadyNode(int number, const std::string& model = "DGXH100",
                             const std::string& state = "ready");

  FixtureOptions options;
  std::string db_url;
  inventory::DatabasePtr db;
  std::shared_ptr<const common::SecretBox> secrets;
  std::unique_ptr<sim::Fleet> fleet;
  std::shared_ptr<redfish::Transport> transport;
  std::shared_ptr<workflows::FakeClock> clock;
  workflows::lifecycle::Env env;
  std::string po_number = "PO-LIFE-1";
  std::string profile_name = "dgx-h100";
  std::string site = "dc1", rack = "r01";
  inventory::Id rack_id = 0;
};

using StepFn = workflows::StepOutcome (*)(const workflows::lifecycle::Env&,
                                          workflows::StepContext&);

struct Driven {
  workflows::StepOutcome outcome;
  int calls = 0;
  // Every ctx.event() of every call, in order (the engine would write them to the timeline).
  std::vector<workflows::StepContext::PendingEvent> events;
};

// Calls `step` until it returns something other than a wait (at most `max_calls` times; a wait
// moves the fake clock to its `until` and, when that is in the real future, polls again after
// a short pause, bounded by `max_calls`). `ctx` carries the data and node across calls.
Driven drive(StepFn step, const workflows::lifecycle::Env& env, workflows::StepContext& ctx,
             int max_calls = 200);

// The kind name of an outcome ("next", "wait", "retry", "fail", "succeed") for messages.
std::string kindName(const workflows::StepOutcome& outcome);
// "kind reason: message" for INFO().
std::string describe(const workflows::StepOutcome& outcome);

}  // namespace lifecycle_test

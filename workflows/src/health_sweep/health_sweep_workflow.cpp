// The out-of-band sweep run (workflows/health_sweep.hpp): one step, "sweep", that reads the
// silent nodes due this tick through their BMCs, raises the flags of what they say and of GPUs
// silent inside reporting nodes, and waits for the next tick. One run for the fleet, so the
// rate caps are fleet-wide whichever replica runs it.
//
//   data: {"last_tick", "read": n, "unreachable": n, "flags": n}   (counts since the run started)
#include <atomic>
#include <thread>

#include "../lifecycle/host_control.hpp"
#include "../lifecycle/lifecycle_steps.hpp"
#include "../reinventory/due_nodes.hpp"
#include "inventory/gpu_flags.hpp"
#include "workflows/fleet_run.hpp"
#include "workflows/health_sweep.hpp"

namespace workflows {
namespace {

using lifecycle::isoTime;
namespace h = inventory::health;

struct Env {
  lifecycle::Env life;
  HealthSweepOptions options;

  Duration silence() const {
    const Duration silent = options.agent_interval * options.silent_intervals;
    return options.health_clock ? silent : life.settings.timings.scaled(silent);
  }
  TimePoint healthNow(const StepContext& ctx) const {
    return options.health_clock ? options.health_clock->now() : ctx.now();
  }
};

h::Seconds seconds(TimePoint t) {
  return std::chrono::time_point_cast<std::chrono::seconds>(t);
}

struct NodeOutcome {
  bool reached = false;
  int flags = 0;
};

common::Result<redfish::BmcNodeHealth> readThroughBmc(const Env& env, inventory::Id node_id,
                                                      TimePoint now) {
  RunInfo run;
  run.kind = kGpuHealthSweep;
  run.node_id = node_id;
  StepContext node_ctx(run, lifecycle::nodeBmcContext(env.life, node_id), now);
  node_ctx.data()["node_id"] = node_id;
  PROV_ASSIGN(auto client, env.life.bmc(node_ctx));
  return redfish::readBmcHealth(*client);
}

// Reads one silent node's BMC, keeps its readings and raises the flags of what it says. Readings
// the history refuses (a BMC's absurd value) are recorded as the sweep's error; the flags are
// raised all the same.
NodeOutcome sweepNode(const Env& env, const inventory::HealthSweepNode& node, TimePoint now) {
  auto& db = *env.life.deps.db;
  auto health = readThroughBmc(env, node.node_id, now);
  if (!health) {
    (void)inventory::markHealthSweepUnreachable(db, node.node_id, seconds(now),
                                                health.error().message);
    return {};
  }
  auto stored = inventory::recordBmcHealth(db, node.node_id,
                                           health_sweep::bmcReadings(*health, now), seconds(now));
  if (!stored) {
    (void)inventory::markHealthSweepUnreachable(db, node.node_id, seconds(now),
                                                "readings not stored: " + stored.error().message);
  }
  const TimePoint silent_since = node.last_reading ? TimePoint(*node.last_reading) : now;
  auto drafts = health_sweep::bmcFindings(node.node_id, *health, silent_since);
  auto raised = drafts.empty()
                    ? common::Result<inventory::FlagRaiseResult>(inventory::FlagRaiseResult{})
                    : inventory::raiseFlags(db, drafts, seconds(now));
  return {true, raised ? static_cast<int>(raised->raised.size()) : 0};
}

// GPUs silent inside nodes that still report: one query, no BMC.
int raiseSilentGpuFlags(const Env& env, TimePoint now) {
  auto& db = *env.life.deps.db;
  auto gpus = inventory::listPlacedGpuReadings(db, env.options.states);
  if (!gpus) return 0;
  auto drafts = health_sweep::silentGpuFindings(*gpus, now, env.silence());
  if (drafts.empty()) return 0;
  auto raised = inventory::raiseFlags(db, drafts, seconds(now));
  return raised ? static_cast<int>(raised->raised.size()) : 0;
}

struct TickResult {
  std::size_t read = 0, unreachable = 0;
  int flags = 0;
};

TickResult sweepDue(const Env& env, const std::vector<inventory::HealthSweepNode>& due,
                    TimePoint now) {
  std::atomic<std::size_t> next{0}, unreachable{0};
  std::atomic<int> flags{0};
  std::vector<std::thread> readers;
  const std::size_t threads = std::min(env.options.concurrency, due.size());
  for (std::size_t t = 0; t < threads; ++t) {
    readers.emplace_back([&] {
      for (std::size_t i = next++; i < due.size(); i = next++) {
        auto outcome = sweepNode(env, due[i], now);
        if (!outcome.reached) ++unreachable;
        flags += outcome.flags;
      }
    });
  }
  for (auto& r : readers) r.join();
  return {due.size(), unreachable.load(), flags.load()};
}

StepOutcome sweep(const Env& env, StepContext& ctx) {
  const auto& o = env.options;
  const TimePoint last = lifecycle::timeAt(ctx.data(), "last_tick").value_or(ctx.now() - o.tick);
  const auto budget =
      reinventory::tickBudget(o.per_minute, std::chrono::duration_cast<Duration>(ctx.now() - last));
  auto nodes = inventory::listHealthSweepNodes(*env.life.deps.db, o.states);
  if (!nodes) return StepOutcome::retry("inventory_error", nodes.error().message);
  const TimePoint health_now = env.healthNow(ctx);
  const auto due_ids = health_sweep::silentNodesDue(
      *nodes, health_now, {env.silence(), o.bmc_min_interval, o.retry_unreachable}, budget);
  std::vector<inventory::HealthSweepNode> due;
  for (auto id : due_ids) {
    for (const auto& n : *nodes) {
      if (n.node_id == id) due.push_back(n);
    }
  }
  auto tick = sweepDue(env, due, health_now);
  tick.flags += raiseSilentGpuFlags(env, health_now);
  auto& data = ctx.data();
  data["last_tick"] = isoTime(ctx.now());
  data["read"] = data.value("read", 0) + static_cast<int>(tick.read);
  data["unreachable"] = data.value("unreachable", 0) + static_cast<int>(tick.unreachable);
  data["flags"] = data.value("flags", 0) + tick.flags;
  return StepOutcome::waitUntil(ctx.now() + o.tick, "next_tick",
                                "swept " + std::to_string(tick.read) + " silent node(s), " +
                                    std::to_string(tick.unreachable) + " unreachable, " +
                                    std::to_string(tick.flags) + " flag(s) raised");
}

}  // namespace

WorkflowDef gpuHealthSweepWorkflow(LifecycleDeps deps, LifecycleSettings lifecycle,
                                   HealthSweepOptions options) {
  auto env = std::make_shared<const Env>(
      Env{lifecycle::Env{std::move(deps), std::move(lifecycle)}, std::move(options)});
  const auto& timings = env->life.settings.timings;
  return fleetRunWorkflow(
      kGpuHealthSweep, "sweep", [env](StepContext& ctx) { return sweep(*env, ctx); },
      timings.scaled(Duration(5000)), timings.scaled(Duration(300000)));
}

common::Result<void> ensureHealthSweepRun(Engine& engine) {
  return ensureFleetRun(engine, kGpuHealthSweep);
}

}  // namespace workflows

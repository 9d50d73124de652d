// The re-inventory run: one step, "sweep", that reads the due nodes of this tick and waits for
// the next. One run for the fleet, so the rate is fleet-wide whichever replica runs it.
//
//   data: {"last_tick", "read": n, "unreachable": n}   (counts since the run started)
#include <atomic>
#include <thread>

#include "../lifecycle/firmware_inventory.hpp"
#include "../lifecycle/host_control.hpp"
#include "due_nodes.hpp"
#include "inventory/node_firmware.hpp"
#include "workflows/fleet_run.hpp"
#include "workflows/reinventory.hpp"

namespace workflows {
namespace {

using lifecycle::isoTime;
using lifecycle::parseIsoTime;

struct Env {
  lifecycle::Env life;
  ReinventoryOptions options;
};

std::optional<TimePoint> timeOf(const std::optional<std::string>& text) {
  return text ? parseIsoTime(*text) : std::nullopt;
}

std::vector<reinventory::NodeReadState> readStates(
    const std::vector<inventory::NodeFirmwareRow>& rows) {
  std::vector<reinventory::NodeReadState> out;
  out.reserve(rows.size());
  for (const auto& r : rows) {
    out.push_back({r.node_id, r.state, timeOf(r.firmware.observed_at),
                   timeOf(r.firmware.attempted_at), r.firmware.reachable});
  }
  return out;
}

// Reads one node's FirmwareInventory and records it; false when the BMC could not be read.
bool readNode(const Env& env, std::int64_t node_id, TimePoint now) {
  auto& db = *env.life.deps.db;
  RunInfo run;
  run.kind = kFirmwareReinventory;
  run.node_id = node_id;
  StepContext node_ctx(run, lifecycle::nodeBmcContext(env.life, node_id), now);
  node_ctx.data()["node_id"] = node_id;
  auto client = env.life.bmc(node_ctx);
  auto members =
      client ? lifecycle::readFirmwareInventory(**client)
             : common::Result<std::vector<lifecycle::FirmwareMember>>(common::fail(client.error()));
  if (!members) {
    (void)inventory::markNodeFirmwareUnreachable(db, node_id, isoTime(now),
                                                 members.error().message);
    return false;
  }
  std::vector<inventory::FirmwareObservation> seen;
  for (const auto& m : *members) {
    seen.push_back({m.path, m.id, m.name, m.software_id, m.version, m.updateable});
  }
  return static_cast<bool>(inventory::recordNodeFirmware(db, node_id, seen, isoTime(now)));
}

StepOutcome sweep(const Env& env, StepContext& ctx) {
  const auto& o = env.options;
  const TimePoint last = lifecycle::timeAt(ctx.data(), "last_tick").value_or(ctx.now() - o.tick);
  const auto budget =
      reinventory::tickBudget(o.per_minute, std::chrono::duration_cast<Duration>(ctx.now() - last));
  auto rows = inventory::listFleetFirmware(*env.life.deps.db, {});
  if (!rows) return StepOutcome::retry("inventory_error", rows.error().message);
  const auto due =
      reinventory::dueNodes(readStates(*rows), ctx.now(),
                            {env.life.settings.timings.scaled(o.interval),
                             env.life.settings.timings.scaled(o.retry_unreachable), o.states},
                            budget);
  std::atomic<std::size_t> next{0}, failed{0};
  std::vector<std::thread> readers;
  const std::size_t threads = std::min(o.concurrency, due.size());
  for (std::size_t t = 0; t < threads; ++t) {
    readers.emplace_back([&] {
      for (std::size_t i = next++; i < due.size(); i = next++) {
        if (!readNode(env, due[i], ctx.now())) ++failed;
      }
    });
  }
  for (auto& r : readers) r.join();
  ctx.data()["last_tick"] = isoTime(ctx.now());
  ctx.data()["read"] = ctx.data().value("read", 0) + static_cast<int>(due.size());
  ctx.data()["unreachable"] = ctx.data().value("unreachable", 0) + static_cast<int>(failed);
  return StepOutcome::waitUntil(ctx.now() + env.life.settings.timings.scaled(o.tick), "next_tick",
                                "read " + std::to_string(due.size()) + " node(s), " +
                                    std::to_string(failed.load()) + " unreachable");
}

}  // namespace

WorkflowDef firmwareReinventoryWorkflow(LifecycleDeps deps, LifecycleSettings lifecycle,
                                        ReinventoryOptions options) {
  auto env = std::make_shared<const Env>(
      Env{lifecycle::Env{std::move(deps), std::move(lifecycle)}, std::move(options)});
  const auto& timings = env->life.settings.timings;
  return fleetRunWorkflow(
      kFirmwareReinventory, "sweep", [env](StepContext& ctx) { return sweep(*env, ctx); },
      timings.scaled(Duration(5000)), timings.scaled(Duration(300000)));
}

common::Result<void> ensureReinventoryRun(Engine& engine) {
  return ensureFleetRun(engine, kFirmwareReinventory);
}

}  // namespace workflows

// The out-of-band health sweep through the engine: simulated DGX H100s over HTTP, a real
// PostgreSQL, a fake clock. Only silent nodes' BMCs are read, under the global and per-BMC caps;
// what they say is kept in the GPU history as the BMC's readings; a degraded GPU or PSU and a GPU
// silent inside a reporting node are flagged, with the BMC's words; an agent that comes back
// sends its queued readings without one being refused.
#include <catch2/catch.hpp>
#include <pqxx/pqxx>

#include "engine_test_support.hpp"
#include "inventory/gpu_flags.hpp"
#include "inventory/gpu_health.hpp"
#include "inventory/health_sweep.hpp"
#include "inventory/nodes.hpp"
#include "inventory/workflow_runs.hpp"
#include "redfish/bmc_health.hpp"
#include "workflows/engine.hpp"
#include "workflows/health_sweep.hpp"
#include "workflows/lifecycle_fixture.hpp"

namespace {

using lifecycle_test::FixtureOptions;
using lifecycle_test::LifecycleFixture;
using nlohmann::json;
namespace h = inventory::health;

template <class T>
T need(common::Result<T> r) {
  if (!r) FAIL(r.error().code + ": " + r.error().message);
  return std::move(r).value();
}

h::Seconds secondsOf(workflows::TimePoint t) {
  return std::chrono::time_point_cast<std::chrono::seconds>(t);
}

struct SweepBench {
  explicit SweepBench(int nodes) : fx(options(nodes)) {
    for (int i = 1; i <= nodes; ++i) addNode(i);
    workflows::EngineOptions eo;
    eo.owner = "test";
    eo.workers = 2;
    engine = std::make_unique<workflows::Engine>(fx.db, fx.clock, eo);
    sweep.agent_interval = std::chrono::seconds(30);
    sweep.per_minute = 2;  // the global cap: 2 BMCs a minute
    sweep.tick = std::chrono::seconds(60);
    sweep.bmc_min_interval = std::chrono::minutes(5);
    fx.env.settings.timings.time_scale = 1;  // the silence is 90 s of the fake clock
    engine->registerWorkflow(
        workflows::gpuHealthSweepWorkflow(fx.env.deps, fx.env.settings, sweep));
  }

  static FixtureOptions options(int nodes) {
    FixtureOptions o;
    o.nodes = nodes;
    return o;
  }

  void addNode(int number) { node_ids.push_back(fx.addReadyNode(number)); }

  // The GPU serials the node's BMC reports, placed in the node as the inspection would.
  std::vector<std::string> placeGpus(int number) {
    std::vector<std::string> serials;
    inventory::ComponentReport report;
    report.actor = "test";
    auto client = need(fx.env.bmc(fx.context(number)));
    auto health = need(redfish::readBmcHealth(*client));
    for (const auto& g : health.gpus) {
      serials.push_back(g.serialNumber);
      report.components.push_back({"gpu", g.id, "NVIDIA", g.model, "", g.serialNumber, ""});
    }
    need(inventory::reportComponents(*fx.db, node_ids[number - 1], report));
    return serials;
  }

  // An agent batch from node `number` at `at` for `serials`.
  void report(int number, const std::vector<std::string>& serials, workflows::TimePoint at) {
    h::NodeBatch batch;
    batch.sampled_at = secondsOf(at);
    for (const auto& s : serials) {
      h::GpuSample g;
      g.serial = s;
      g.temperature_c = 55;
      batch.gpus.push_back(g);
    }
    need(inventory::ingestHealthBatch(*fx.db, node_ids[number - 1], batch,
                                      secondsOf(fx.clock->now())));
  }

  std::uint64_t bmcRequests(int number) const {
    return fx.fleet->stats().bmcs.at(static_cast<std::size_t>(number - 1)).requests;
  }

  long long count(const std::string& sql) const { return std::stoll(fx.scalar(sql)); }

  LifecycleFixture fx;
  std::unique_ptr<workflows::Engine> engine;
  workflows::HealthSweepOptions sweep;
  std::vector<inventory::Id> node_ids;
};

}  // namespace

TEST_CASE("The sweep reads only silent nodes' BMCs, under the caps, and flags what they say",
          "[health][sweep]") {
  SweepBench bench(4);
  auto& fx = bench.fx;
  const auto now = fx.clock->now();
  // Node 1 reports (one GPU of it silent for 30 min), node 2 fell silent an hour ago, nodes 3
  // and 4 never reported.
  auto gpus1 = bench.placeGpus(1);
  auto gpus2 = bench.placeGpus(2);
  bench.report(1, {gpus1[2]}, now - std::chrono::minutes(30));
  bench.report(1, {gpus1[0], gpus1[1]}, now - std::chrono::seconds(10));
  bench.report(2, gpus2, now - std::chrono::hours(1));
  fx.patchFaults(2, {{"gpu_health",
                      {{"gpu", 4}, {"health", "Critical"}, {"message", "HBM uncorrectable ECC"}}},
                     {"gpu_off_bus", 3},
                     {"psu_health", {{"psu", 2}, {"health", "Warning"}, {"message", "AC lost"}}}});
  const auto before = bench.bmcRequests(1);

  ENGINE_REQUIRE_OK(workflows::ensureHealthSweepRun(*bench.engine));
  ENGINE_REQUIRE_OK(workflows::ensureHealthSweepRun(*bench.engine));  // a second replica asking
  CHECK(need(inventory::workflowRunCounts(*fx.db, workflows::kGpuHealthSweep)).front().second == 1);
  REQUIRE(need(bench.engine->runOnce()) == 1);

  // The global cap: 2 of the 3 silent nodes this minute, the least recently tried first.
  CHECK(bench.bmcRequests(1) == before);  // its agent reports: its BMC is left alone
  CHECK(bench.count("SELECT count(*) FROM node_health_sweeps") == 2);
  CHECK(bench.count("SELECT count(*) FROM node_health_sweeps WHERE reachable AND gpus = 8") == 2);
  // Node 2's BMC readings are in its GPUs' history, marked as the BMC's.
  const auto id2 = std::to_string(bench.node_ids[1]);
  CHECK(bench.count("SELECT count(*) FROM gpu_health_samples WHERE source = 'bmc' AND node_id = " +
                    id2 + " AND temperature_c IS NOT NULL AND power_w IS NOT NULL") == 8);
  // ProcessorMetrics PCIeErrors (replays, correctable, non-fatal, fatal) and the DRAM sensor
  // are kept with them.
  CHECK(bench.count("SELECT count(*) FROM gpu_health_samples WHERE source = 'bmc' AND node_id = " +
                    id2 + " AND pcie_replay_errors = 0 AND hbm_temperature_c IS NOT NULL") == 8);
  CHECK(bench.count(
            "SELECT count(*) FROM gpu_health_samples WHERE source = 'bmc' AND node_id = " + id2 +
            " AND pcie_correctable_errors IS NOT NULL AND pcie_nonfatal_errors = 0"
            " AND pcie_fatal_errors = 0") == 8);
  // The recorded DGX H100 tree's GPU_SXM_8 counts one correctable error.
  CHECK(bench.count("SELECT sum(pcie_correctable_errors) FROM gpu_health_samples WHERE "
                    "source = 'bmc' AND node_id = " +
                    id2) == 1);
  CHECK(bench.count("SELECT count(*) FROM gpu_health_samples WHERE source = 'bmc' AND node_id = " +
                    std::to_string(bench.node_ids[0])) == 0);

  // The GPU's history says which reading is the BMC's.
  auto history = need(
      inventory::gpuHealthHistory(*fx.db, gpus2[0], secondsOf(now - std::chrono::hours(2)),
                                  secondsOf(now + std::chrono::minutes(1)), h::Resolution::kRaw));
  REQUIRE(history.points.size() == 2);
  CHECK(history.points[0].source == "agent");
  CHECK(history.points[1].source == "bmc");
  CHECK(history.points[1].temperature_c.count == 1);

  // The flags, in the BMC's words, on node 2; and node 1's silent GPU.
  inventory::FlagFilter filter;
  auto flags = need(inventory::listFlags(*fx.db, filter));
  std::map<std::string, inventory::GpuFlag> by_rule;
  for (const auto& f : flags) by_rule[f.rule] = f;
  REQUIRE(by_rule.count("bmc.gpu_health") == 1);
  CHECK(by_rule["bmc.gpu_health"].serial == gpus2[3]);
  CHECK(by_rule["bmc.gpu_health"].reason ==
        "BMC reports GPU GPU_SXM_4 health Critical: HBM uncorrectable ECC");
  CHECK(by_rule["bmc.gpu_health"].node_id == bench.node_ids[1]);
  REQUIRE(by_rule.count("bmc.gpu_off_bus") == 1);
  CHECK(by_rule["bmc.gpu_off_bus"].serial == gpus2[2]);
  REQUIRE(by_rule.count("bmc.psu_health") == 1);
  CHECK(by_rule["bmc.psu_health"].reason ==
        "BMC reports power supply PSU1 health Warning: AC lost");
  REQUIRE(by_rule.count("silent.gpu") == 1);
  CHECK(by_rule["silent.gpu"].serial == gpus1[2]);
  CHECK(by_rule["silent.gpu"].node_id == bench.node_ids[0]);
  CHECK(flags.size() == 4);

  // The next minute: the third silent node; the two read a minute ago are not read again.
  const auto node2_requests = bench.bmcRequests(2);
  fx.clock->advance(std::chrono::seconds(60));
  REQUIRE(need(bench.engine->runOnce()) == 1);
  CHECK(bench.count("SELECT count(*) FROM node_health_sweeps") == 3);
  CHECK(bench.bmcRequests(2) == node2_requests);
  // Another minute: every silent BMC was read less than 5 minutes ago, so none is read.
  const auto node3_requests = bench.bmcRequests(3), node4_requests = bench.bmcRequests(4);
  fx.clock->advance(std::chrono::seconds(60));
  REQUIRE(need(bench.engine->runOnce()) == 1);
  CHECK(bench.bmcRequests(2) == node2_requests);
  CHECK(bench.bmcRequests(3) == node3_requests);
  CHECK(bench.bmcRequests(4) == node4_requests);
  // The flags are not raised twice.
  CHECK(need(inventory::listFlags(*fx.db, filter)).size() == 4);

  // Node 2's agent comes back and sends what it queued while silent: nothing is refused as
  // older than the BMC's readings.
  bench.report(2, gpus2, now - std::chrono::minutes(20));
  bench.report(2, gpus2, fx.clock->now() - std::chrono::seconds(5));
  CHECK(
      bench.count("SELECT count(*) FROM gpu_health_samples WHERE source = 'agent' AND node_id = " +
                  id2) == 24);
  // It reports again: no longer silent, its BMC is left alone even after its interval.
  fx.clock->advance(std::chrono::minutes(5));
  bench.report(2, gpus2, fx.clock->now() - std::chrono::seconds(5));
  const auto node2_back = bench.bmcRequests(2);
  REQUIRE(need(bench.engine->runOnce()) == 1);
  CHECK(bench.bmcRequests(2) == node2_back);
  CHECK(bench.bmcRequests(3) > node3_requests);  // still silent: read again after 5 minutes
}

TEST_CASE("An unreachable BMC is recorded and tried again only after the retry time",
          "[health][sweep]") {
  SweepBench bench(1);
  auto& fx = bench.fx;
  fx.patchFaults(1, {{"http_5xx_rate", 1.0}});
  ENGINE_REQUIRE_OK(workflows::ensureHealthSweepRun(*bench.engine));
  REQUIRE(need(bench.engine->runOnce()) == 1);
  CHECK(bench.count("SELECT count(*) FROM node_health_sweeps WHERE NOT reachable AND "
                    "swept_at IS NULL AND error <> ''") == 1);
  const auto requests = bench.bmcRequests(1);
  fx.patchFaults(1, {{"http_5xx_rate", 0.0}});
  fx.clock->advance(std::chrono::minutes(10));
  REQUIRE(need(bench.engine->runOnce()) == 1);
  CHECK(bench.bmcRequests(1) == requests);  // 10 min < the 15 min retry time
  fx.clock->advance(std::chrono::minutes(6));
  REQUIRE(need(bench.engine->runOnce()) == 1);
  CHECK(bench.count("SELECT count(*) FROM node_health_sweeps WHERE reachable AND gpus = 8") == 1);
  CHECK(bench.count("SELECT count(*) FROM gpu_flags") == 0);  // a healthy DGX
}

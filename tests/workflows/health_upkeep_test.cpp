// The fleet's GPU health upkeep run: one run however often replicas ask, partitions made ahead
// of the days that come, done again after its interval.
#include <pqxx/pqxx>

#include "engine_test_support.hpp"
#include "inventory/gpu_flags.hpp"
#include "inventory/gpu_health.hpp"
#include "inventory/health/partitions.hpp"
#include "inventory/nodes.hpp"
#include "workflows/health_flags.hpp"
#include "workflows/health_upkeep.hpp"

namespace {

long long samplePartitions(const std::string& url) {
  pqxx::connection c(url);
  pqxx::nontransaction w(c);
  return w
      .exec1("SELECT count(*) FROM pg_inherits WHERE inhparent = 'gpu_health_samples'::regclass")[0]
      .as<long long>();
}

// A node for the readings to come from.
inventory::Id nodeNamed(inventory::Database& db, const std::string& chassis_serial) {
  inventory::NodeSpec spec;
  spec.chassis_serial = chassis_serial;
  auto node = inventory::createNode(db, spec, "test");
  ENGINE_REQUIRE_OK(node);
  return node->id;
}

}  // namespace

TEST_CASE("The health upkeep run keeps partitions ahead of the days and repeats on its interval",
          "[health][upkeep]") {
  auto t = engine_test::freshDb();
  auto clock = std::make_shared<workflows::FakeClock>();
  workflows::Engine engine(t.db, clock, workflows::EngineOptions{"test-replica"});
  workflows::HealthUpkeepOptions options;
  options.interval = std::chrono::minutes(5);
  engine.registerWorkflow(workflows::gpuHealthUpkeepWorkflow(t.db, options));
  ENGINE_REQUIRE_OK(workflows::ensureHealthUpkeepRun(engine));
  ENGINE_REQUIRE_OK(workflows::ensureHealthUpkeepRun(engine));  // a second replica asking
  auto counts = inventory::workflowRunCounts(*t.db, workflows::kGpuHealthUpkeep);
  ENGINE_REQUIRE_OK(counts);
  REQUIRE(counts->size() == 1);
  CHECK(counts->front().second == 1);

  const long long before = samplePartitions(t.url);
  auto ran = engine.runOnce();
  ENGINE_REQUIRE_OK(ran);
  CHECK(*ran == 1);
  const long long first = samplePartitions(t.url);
  CHECK(first >= before);
  CHECK(first >= 3);  // today and the two days after

  ran = engine.runOnce();
  ENGINE_REQUIRE_OK(ran);
  CHECK(*ran == 0);  // waiting for its interval
  clock->advance(std::chrono::hours(24));
  ran = engine.runOnce();
  ENGINE_REQUIRE_OK(ran);
  CHECK(*ran == 1);
  CHECK(samplePartitions(t.url) == first + 1);  // a new day ahead
}

TEST_CASE("The health upkeep run evaluates the rules on GPUs with new readings and raises flags",
          "[health][upkeep]") {
  namespace h = inventory::health;
  auto t = engine_test::freshDb();
  auto clock = std::make_shared<workflows::FakeClock>();
  workflows::Engine engine(t.db, clock, workflows::EngineOptions{"test-replica"});
  workflows::HealthUpkeepOptions options;
  options.interval = std::chrono::minutes(5);
  engine.registerWorkflow(workflows::gpuHealthUpkeepWorkflow(t.db, options));

  const inventory::Id node_id = nodeNamed(*t.db, "NODE-UPK-1");
  const auto now = std::chrono::floor<std::chrono::seconds>(clock->now());
  h::GpuSample pending;
  pending.serial = "GPU-UPK-0";
  pending.temperature_c = 60;
  pending.remap_pending = true;
  h::GpuSample fine = pending;
  fine.serial = "GPU-UPK-1";
  fine.remap_pending = false;
  h::GpuSample dbe = fine;
  dbe.serial = "GPU-UPK-2";
  dbe.xids = {{48, now - std::chrono::minutes(2)}};
  ENGINE_REQUIRE_OK(inventory::ingestHealthBatch(
      *t.db, node_id, {now - std::chrono::minutes(1), {pending, fine, dbe}}, now));

  ENGINE_REQUIRE_OK(workflows::ensureHealthUpkeepRun(engine));
  auto ran = engine.runOnce();
  ENGINE_REQUIRE_OK(ran);
  CHECK(*ran == 1);
  inventory::FlagFilter all;
  auto flags = inventory::listFlags(*t.db, all);
  ENGINE_REQUIRE_OK(flags);
  REQUIRE(flags->size() == 2);
  CHECK((*flags)[0].serial == "GPU-UPK-0");
  CHECK((*flags)[0].rule == "nvidia.remap_pending");
  CHECK((*flags)[0].action == "reset_at_idle");
  CHECK((*flags)[1].serial == "GPU-UPK-2");
  CHECK((*flags)[1].rule == "nvidia.xid48_dbe");
  CHECK((*flags)[1].action == "drain");

  // The next pass finds no new readings: nothing evaluated, nothing raised twice.
  clock->advance(std::chrono::minutes(6));
  auto again = workflows::evaluateHealthFlags(
      *t.db, h::defaultPolicy(), now + std::chrono::minutes(1), now + std::chrono::minutes(6));
  ENGINE_REQUIRE_OK(again);
  CHECK(again->gpus == 0);
  auto twice = workflows::evaluateHealthFlags(
      *t.db, h::defaultPolicy(), now - std::chrono::hours(1), now + std::chrono::minutes(6));
  ENGINE_REQUIRE_OK(twice);
  CHECK(twice->gpus == 3);
  CHECK(twice->raised.raised.empty());
  CHECK(twice->raised.already_open == 2);
}

TEST_CASE(
    "The flag evaluation judges each GPU against its node-mates with the learned-normal rules",
    "[health][upkeep]") {
  namespace h = inventory::health;
  using namespace std::chrono_literals;
  auto t = engine_test::freshDb();
  const inventory::Id node_id = nodeNamed(*t.db, "NODE-LN-1");

  // 20 days of one node's 8 GPUs, each with its own offset and a little noise; from day 10
  // GPU 3 gains 0.6 C a day against its mates, from day 15 GPU 5's PCIe link replays 100 times a
  // day (the driver's count, turned into deltas at ingest). The daily roll-ups are built as the
  // service builds them.
  const h::Days day0 = std::chrono::sys_days{std::chrono::year{2026} / 11 / 1};
  for (int d = 0; d < 20; ++d) {
    const h::Seconds at = h::Seconds{day0 + std::chrono::days{d}} + 12h;
    h::NodeBatch batch{at, {}};
    for (int i = 0; i < 8; ++i) {
      h::GpuSample s;
      s.serial = "GPU-LN-" + std::to_string(i);
      s.temperature_c = 60 + 0.5 * i + 0.3 * (((i * 7 + d * 13) % 5) - 2) / 2.0;
      if (i == 3 && d >= 10) *s.temperature_c += 0.6 * (d - 9);
      s.power_w = 600;
      s.sm_clock_mhz = 1755;
      s.counters[static_cast<std::size_t>(h::Counter::kPcieReplayErrors)] =
          i == 5 && d >= 15 ? 100u * static_cast<unsigned>(d - 14) : 0u;
      batch.gpus.push_back(s);
    }
    ENGINE_REQUIRE_OK(inventory::ingestHealthBatch(*t.db, node_id, batch, at + 1min));
    ENGINE_REQUIRE_OK(inventory::rollUpHealth(*t.db, h::Seconds{day0 + std::chrono::days{d + 1}}));
  }

  // One reading a day stands for the day here (the policy asks for 360).
  h::Policy policy = h::defaultPolicy();
  for (auto& r : policy) {
    if (r.kind == h::RuleKind::kLearnedNormal) r.min_samples = 1;
  }
  const h::Seconds now = h::Seconds{day0 + std::chrono::days{20}} + 10min;
  auto evaluated = workflows::evaluateHealthFlags(*t.db, policy, now - 13h, now);
  ENGINE_REQUIRE_OK(evaluated);
  CHECK(evaluated->gpus == 8);
  inventory::FlagFilter all;
  auto flags = inventory::listFlags(*t.db, all);
  ENGINE_REQUIRE_OK(flags);
  REQUIRE(flags->size() == 2);
  CHECK((*flags)[0].serial == "GPU-LN-3");
  CHECK((*flags)[0].rule == "learned.temperature");
  CHECK((*flags)[0].action == "rerun_burn_in");
  CHECK((*flags)[0].reason.find("node " + std::to_string(node_id)) != std::string::npos);
  CHECK((*flags)[1].serial == "GPU-LN-5");
  CHECK((*flags)[1].rule == "learned.pcie_replays");
  CHECK((*flags)[1].reason.find("PCIe replays above the GPU's learned rate") != std::string::npos);
}

TEST_CASE("The flag evaluation finds a GPU idle while its node-mates work", "[health][upkeep]") {
  namespace h = inventory::health;
  using namespace std::chrono_literals;
  auto t = engine_test::freshDb();
  const inventory::Id node_id = nodeNamed(*t.db, "NODE-IDLE-1");
  // 3 days of one node's 6 GPUs at 95-98% utilisation; GPU 2 at 0% from day 1 on. The daily
  // roll-ups (utilisation included) are built as the service builds them.
  const h::Days day0 = std::chrono::sys_days{std::chrono::year{2026} / 11 / 1};
  for (int d = 0; d < 3; ++d) {
    const h::Seconds at = h::Seconds{day0 + std::chrono::days{d}} + 12h;
    h::NodeBatch batch{at, {}};
    for (int i = 0; i < 6; ++i) {
      h::GpuSample s;
      s.serial = "GPU-IDLE-" + std::to_string(i);
      s.temperature_c = 60;
      s.gpu_utilization_pct = i == 2 && d >= 1 ? 0 : 95 + i % 4;
      batch.gpus.push_back(s);
    }
    ENGINE_REQUIRE_OK(inventory::ingestHealthBatch(*t.db, node_id, batch, at + 1min));
    ENGINE_REQUIRE_OK(inventory::rollUpHealth(*t.db, h::Seconds{day0 + std::chrono::days{d + 1}}));
  }
  // One reading a day stands for the day here (the policy asks for 360).
  h::Policy policy = h::defaultPolicy();
  for (auto& r : policy) {
    if (r.kind == h::RuleKind::kIdleInBusyNode) r.min_samples = 1;
  }
  const h::Seconds now = h::Seconds{day0 + std::chrono::days{3}} + 10min;
  auto evaluated = workflows::evaluateHealthFlags(*t.db, policy, now - 13h, now);
  ENGINE_REQUIRE_OK(evaluated);
  CHECK(evaluated->gpus == 6);
  inventory::FlagFilter all;
  auto flags = inventory::listFlags(*t.db, all);
  ENGINE_REQUIRE_OK(flags);
  REQUIRE(flags->size() == 1);
  CHECK((*flags)[0].serial == "GPU-IDLE-2");
  CHECK((*flags)[0].rule == "node.idle_gpu");
  CHECK((*flags)[0].action == "rerun_burn_in");
  CHECK((*flags)[0].reason.find("utilisation 0.0%") != std::string::npos);
  CHECK((*flags)[0].reason.find("5 node-mates' median is 96.0%") != std::string::npos);
}

TEST_CASE("The flag evaluation reads an hour of PCIe replays from the hourly roll-ups",
          "[health][upkeep]") {
  namespace h = inventory::health;
  using namespace std::chrono_literals;
  auto t = engine_test::freshDb();
  const inventory::Id node_id = nodeNamed(*t.db, "NODE-REPLAY-1");
  // A reading every 10 minutes for 3 hours; GPU 1's replay counter climbs 100 a reading in the
  // second hour (600 in the hour, 10 a minute), GPU 0's by 10 (1 a minute).
  const h::Seconds start{std::chrono::sys_days{std::chrono::year{2026} / 11 / 1} + 9h};
  std::uint64_t replays[2] = {0, 0};
  for (int m = 0; m < 180; m += 10) {
    const h::Seconds at = start + std::chrono::minutes{m};
    h::NodeBatch batch{at, {}};
    for (int i = 0; i < 2; ++i) {
      if (m >= 60 && m < 120) replays[i] += i == 1 ? 100 : 10;
      h::GpuSample s;
      s.serial = "GPU-REPLAY-" + std::to_string(i);
      s.temperature_c = 60;
      s.counters[static_cast<std::size_t>(h::Counter::kPcieReplayErrors)] = replays[i];
      batch.gpus.push_back(s);
    }
    ENGINE_REQUIRE_OK(inventory::ingestHealthBatch(*t.db, node_id, batch, at + 1min));
  }
  const h::Seconds now = start + 3h + 5min;
  ENGINE_REQUIRE_OK(inventory::rollUpHealth(*t.db, now));
  auto evaluated = workflows::evaluateHealthFlags(*t.db, h::defaultPolicy(), now - 4h, now);
  ENGINE_REQUIRE_OK(evaluated);
  CHECK(evaluated->gpus == 2);
  inventory::FlagFilter all;
  auto flags = inventory::listFlags(*t.db, all);
  ENGINE_REQUIRE_OK(flags);
  REQUIRE(flags->size() == 1);
  CHECK((*flags)[0].serial == "GPU-REPLAY-1");
  CHECK((*flags)[0].rule == "nvidia.pcie_replay_rate");
  CHECK((*flags)[0].reason.find("10.0 a minute") != std::string::npos);
}

TEST_CASE("The health upkeep run keeps the history on the health clock when it is sped up",
          "[health][upkeep]") {
  namespace h = inventory::health;
  auto t = engine_test::freshDb();
  auto clock = std::make_shared<workflows::FakeClock>();
  // A simulated fleet ten days ahead of the engine: its days have ended, the engine's have not.
  auto health_clock =
      std::make_shared<workflows::FakeClock>(clock->now() + std::chrono::hours(240));
  workflows::Engine engine(t.db, clock, workflows::EngineOptions{"test-replica"});
  workflows::HealthUpkeepOptions options;
  options.interval = std::chrono::minutes(5);
  options.health_clock = health_clock;
  engine.registerWorkflow(workflows::gpuHealthUpkeepWorkflow(t.db, options));

  const inventory::Id node_id = nodeNamed(*t.db, "NODE-UPK-FAST");
  const auto health_now = std::chrono::floor<std::chrono::seconds>(health_clock->now());
  h::GpuSample sample;
  sample.serial = "GPU-UPK-FAST";
  sample.temperature_c = 61;
  ENGINE_REQUIRE_OK(inventory::ingestHealthBatch(
      *t.db, node_id, {health_now - std::chrono::hours(48), {sample}}, health_now));

  ENGINE_REQUIRE_OK(workflows::ensureHealthUpkeepRun(engine));
  auto ran = engine.runOnce();
  ENGINE_REQUIRE_OK(ran);
  CHECK(*ran == 1);
  pqxx::connection c(t.url);
  pqxx::nontransaction w(c);
  // The day two days before the health clock's now ended there: rolled up.
  CHECK(w.exec1("SELECT count(*) FROM gpu_health_daily WHERE gpu_serial = 'GPU-UPK-FAST'")[0]
            .as<long long>() == 1);
  // Partitions ahead of the health clock's today, not the engine's.
  const auto ahead = h::dayOf(health_now + std::chrono::hours(48));
  const auto wanted = h::partitionsCovering(h::Resolution::kRaw, ahead, ahead);
  REQUIRE(wanted.size() == 1);
  CHECK(w.exec1("SELECT count(*) FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid "
                "WHERE i.inhparent = 'gpu_health_samples'::regclass AND c.relname = " +
                w.quote(wanted[0].name))[0]
            .as<long long>() == 1);
}

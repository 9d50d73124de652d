// GPU health history against a real PostgreSQL: partitions and their BRIN index, ingest with
// counter resets, XID bursts, GPUs moving, roll-ups, retention and reads at each resolution.
#include <catch2/catch.hpp>

#include "integration/inventory_test_support.hpp"
#include "inventory/gpu_health.hpp"
#include "inventory/health/partitions.hpp"

using namespace inventory;
using namespace std::chrono_literals;
using inventory_test::count;
using inventory_test::makeNode;
using inventory_test::makeRack;
using inventory_test::scalar;
namespace h = inventory::health;

namespace {

h::Seconds utc(const char* text) {
  auto t = h::parseUtc(text);
  REQUIRE(t);
  return *t;
}

// The service clock of every ingest here (static: no Catch2 macros).
const h::Seconds kNow = *h::parseUtc("2026-12-04T12:00:00Z");

h::GpuSample reading(const std::string& serial, std::uint64_t corrected_volatile,
                     std::uint64_t corrected_aggregate, const std::string& epoch = "boot-1") {
  h::GpuSample g;
  g.serial = serial;
  g.driver_epoch = epoch;
  g.temperature_c = 60;
  g.power_w = 400;
  g.sm_clock_mhz = 1980;
  g.counters[static_cast<std::size_t>(h::Counter::kEccCorrectedVolatile)] = corrected_volatile;
  g.counters[static_cast<std::size_t>(h::Counter::kEccCorrectedAggregate)] = corrected_aggregate;
  g.counters[static_cast<std::size_t>(h::Counter::kEccUncorrectedVolatile)] = 0;
  return g;
}

h::NodeBatch batchAt(h::Seconds at, std::vector<h::GpuSample> gpus) {
  return {at, std::move(gpus)};
}

HealthIngestResult ingest(Database& db, Id node, const h::NodeBatch& batch) {
  auto r = ingestHealthBatch(db, node, batch, kNow);
  REQUIRE_OK(r);
  return *r;
}

std::vector<std::string> kinds(const GpuHealthHistory& history) {
  std::vector<std::string> out;
  for (const auto& e : history.events) out.push_back(e.kind);
  return out;
}

std::string partitionsOf(const std::string& url, const std::string& parent) {
  return scalar(url,
                "SELECT coalesce(string_agg(c.relname, ',' ORDER BY c.relname), '') FROM "
                "pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = '" +
                    parent + "'::regclass");
}

}  // namespace

TEST_CASE("health partitions are created once per day, month and year, with a BRIN index",
          "[integration][inventory][health]") {
  auto inv = inventory_test::freshInventory();
  const h::Days first = h::dayOf(utc("2026-12-31T00:00:00Z"));
  auto created = ensureHealthPartitions(*inv.db, first, first + std::chrono::days{1});
  REQUIRE_OK(created);
  CHECK(created->size() == 6);  // 2 days, 2 months, 2 years
  CHECK(partitionsOf(inv.url, "gpu_health_samples") ==
        "gpu_health_samples_20261231,gpu_health_samples_20270101");
  CHECK(partitionsOf(inv.url, "gpu_health_hourly") ==
        "gpu_health_hourly_202612,gpu_health_hourly_202701");
  CHECK(partitionsOf(inv.url, "gpu_health_daily") == "gpu_health_daily_2026,gpu_health_daily_2027");
  CHECK(scalar(inv.url,
               "SELECT count(*) FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid "
               "JOIN pg_am a ON a.oid = c.relam WHERE a.amname = 'brin' AND "
               "i.indrelid = 'gpu_health_samples_20261231'::regclass") == "1");
  CHECK(scalar(inv.url, "SELECT relkind FROM pg_class WHERE relname = 'gpu_health_samples'") ==
        "p");
  auto again = ensureHealthPartitions(*inv.db, first, first + std::chrono::days{1});
  REQUIRE_OK(again);
  CHECK(again->empty());
}

TEST_CASE("a counter reset across a driver reload is counted once",
          "[integration][inventory][health]") {
  auto inv = inventory_test::freshInventory();
  auto& db = *inv.db;
  auto node = makeNode(db, "NODE-H1");
  const auto t0 = utc("2026-12-04T10:00:00Z");

  auto first = ingest(db, node.id, batchAt(t0, {reading("GPU-A", 5, 100), reading("GPU-B", 0, 0)}));
  CHECK(first.samples == 2);
  ingest(db, node.id, batchAt(t0 + 30s, {reading("GPU-A", 8, 103)}));
  // The driver reloads: the volatile counter restarts at 2; the aggregate one moved on by 2.
  auto reloaded = ingest(db, node.id, batchAt(t0 + 60s, {reading("GPU-A", 2, 105, "boot-2")}));
  CHECK(reloaded.resets == 1);
  // The agent retries the same batch: nothing is counted again.
  auto retried = ingest(db, node.id, batchAt(t0 + 60s, {reading("GPU-A", 2, 105, "boot-2")}));
  CHECK(retried.samples == 0);
  CHECK(retried.duplicates == 1);
  // An older reading than the last one is refused whole, nothing stored.
  auto stale = ingestHealthBatch(
      db, node.id, batchAt(t0 + 45s, {reading("GPU-B", 1, 1), reading("GPU-A", 9, 104)}), kNow);
  REQUIRE_FALSE(stale.ok());
  CHECK(stale.error().code == "stale_sample");
  CHECK(count(inv.url, "gpu_health_samples") == 4);

  CHECK(scalar(inv.url,
               "SELECT sum(ecc_corrected_delta) FROM gpu_health_samples WHERE "
               "gpu_serial = 'GPU-A'") == "5");
  auto history = gpuHealthHistory(db, "GPU-A", t0 - 1h, t0 + 1h, h::Resolution::kRaw);
  REQUIRE_OK(history);
  REQUIRE(history->counters);
  CHECK(history->counters->lifetime.at("ecc_corrected_volatile") == 10);
  CHECK(history->counters->lifetime.at("ecc_corrected_aggregate") == 105);
  CHECK(history->counters->resets == 1);
  CHECK(history->counters->driver_epoch == "boot-2");
  CHECK(history->points.size() == 3);
  CHECK(history->points[1].ecc_corrected == 3);
  CHECK(history->points[2].ecc_corrected == 2);
  CHECK(kinds(*history) ==
        std::vector<std::string>{"first_seen", "ecc_errors", "counter_reset", "ecc_errors"});

  auto unknown = ingestHealthBatch(db, 999999, batchAt(t0 + 90s, {reading("GPU-A", 2, 105)}), kNow);
  REQUIRE_FALSE(unknown.ok());
  CHECK(unknown.error().kind == common::ErrorKind::kNotFound);
  auto bad = ingestHealthBatch(db, node.id, batchAt(kNow + 1h, {reading("GPU-A", 2, 105)}), kNow);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().field == "sampled_at");
  CHECK(count(inv.url, "gpu_health_samples") == 4);
}

TEST_CASE("XIDs are grouped into bursts and a GPU's history follows it to another node",
          "[integration][inventory][health]") {
  auto inv = inventory_test::freshInventory();
  auto& db = *inv.db;
  auto a = makeNode(db, "NODE-X1");
  auto b = makeNode(db, "NODE-X2");
  const auto t0 = utc("2026-12-04T10:00:00Z");
  auto g = reading("GPU-X", 0, 0);
  g.xids = {{79, t0 - 20s}, {79, t0 - 10s}, {13, t0 - 5s}};
  ingest(db, a.id, batchAt(t0, {g}));
  g.xids = {{79, t0 + 20s}};
  g.remap_pending = true;
  ingest(db, a.id, batchAt(t0 + 30s, {g}));
  // Moved to node B (an RMA swap); much later the same XID is a new burst.
  g.xids = {{79, t0 + 2h}};
  g.remap_pending = false;
  ingest(db, b.id, batchAt(t0 + 2h + 10s, {g}));

  auto history = gpuHealthHistory(db, "GPU-X", t0 - 1h, t0 + 3h, h::Resolution::kRaw);
  REQUIRE_OK(history);
  REQUIRE(history->xid_bursts.size() == 3);
  CHECK(history->xid_bursts[0].xid == 79);
  CHECK(history->xid_bursts[0].count == 3);
  CHECK(history->xid_bursts[0].node_id == a.id);
  CHECK(history->xid_bursts[1].xid == 13);
  CHECK(history->xid_bursts[2].node_id == b.id);
  CHECK(kinds(*history) == std::vector<std::string>{"xid_burst", "xid_burst", "first_seen",
                                                    "threshold_crossed", "xid_burst", "gpu_moved",
                                                    "threshold_cleared"});
  REQUIRE(history->points.size() == 3);
  CHECK(history->points[0].worst_class == 2);  // XID 79: fallen off the bus
  CHECK(history->points[0].xids == 3);
  CHECK(history->points[2].node_id == b.id);
  CHECK(scalar(inv.url, "SELECT node_id FROM gpu_counter_state WHERE gpu_serial = 'GPU-X'") ==
        std::to_string(b.id));
}

TEST_CASE("roll-ups match the raw data, are idempotent and take late readings",
          "[integration][inventory][health]") {
  auto inv = inventory_test::freshInventory();
  auto& db = *inv.db;
  auto rack = makeRack(db, "R07");
  auto node = makeNode(db, "NODE-R1", "", rack, 3);
  const auto t0 = utc("2026-12-03T10:00:00Z");
  const double temps[] = {50, 70, 64, 58};
  const std::uint64_t replays[] = {0, 3, 3, 10};  // the driver's PCIe replay count
  for (int i = 0; i < 4; ++i) {
    auto g = reading("GPU-R", static_cast<std::uint64_t>(i), 0);
    g.temperature_c = temps[i];
    g.hbm_temperature_c = 70 + 2 * i;
    g.mem_clock_mhz = 2619;
    g.gpu_utilization_pct = 100 - 10 * i;
    g.counters[static_cast<std::size_t>(h::Counter::kPcieReplayErrors)] = replays[i];
    ingest(db, node.id, batchAt(t0 + std::chrono::minutes{25 * i}, {g}));  // 10:00 .. 11:15
  }
  // Before 11:00 nothing has ended; at 12:00 both hours have, the day has not.
  auto early = rollUpHealth(db, utc("2026-12-03T10:59:00Z"));
  REQUIRE_OK(early);
  CHECK(early->hourly_buckets == 0);
  auto run = rollUpHealth(db, utc("2026-12-03T12:00:00Z"));
  REQUIRE_OK(run);
  CHECK(run->hourly_buckets == 2);
  CHECK(run->daily_buckets == 0);
  CHECK(scalar(inv.url,
               "SELECT samples || ' ' || temperature_min || ' ' || temperature_max || ' ' "
               "|| temperature_sum || ' ' || ecc_corrected_delta FROM gpu_health_hourly "
               "WHERE bucket = '2026-12-03T10:00:00Z'") == "3 50 70 184 2");
  // The monitor's gauges and the PCIe replays (the first reading is the count's baseline).
  CHECK(scalar(inv.url,
               "SELECT hbm_temperature_n || ' ' || hbm_temperature_min || ' ' || "
               "hbm_temperature_max || ' ' || mem_clock_sum || ' ' || utilization_min || ' ' || "
               "pcie_replay_delta FROM gpu_health_hourly "
               "WHERE bucket = '2026-12-03T10:00:00Z'") == "3 70 74 7857 80 3");
  auto again = rollUpHealth(db, utc("2026-12-03T12:00:00Z"));
  REQUIRE_OK(again);
  CHECK(again->hourly_buckets == 0);
  CHECK(count(inv.url, "gpu_health_hourly") == 2);

  // The next day the day has ended: it is built from its hours.
  auto day = rollUpHealth(db, kNow);
  REQUIRE_OK(day);
  CHECK(day->daily_buckets == 1);
  CHECK(scalar(inv.url,
               "SELECT samples || ' ' || temperature_min || ' ' || temperature_max || ' ' "
               "|| temperature_n FROM gpu_health_daily") == "4 50 70 4");

  // A reading of another GPU for 10:xx arrives late: the hour and the day are rolled up again.
  auto late = reading("GPU-S", 0, 0);
  late.temperature_c = 90;
  ingest(db, node.id, batchAt(t0 + 5min, {late}));
  auto rerun = rollUpHealth(db, kNow);
  REQUIRE_OK(rerun);
  CHECK(rerun->hourly_buckets == 1);
  CHECK(rerun->daily_buckets == 1);
  CHECK(scalar(inv.url, "SELECT max(temperature_max) FROM gpu_health_daily") == "90");
  CHECK(count(inv.url, "gpu_health_daily") == 2);

  // Reads at each resolution, and the group roll-ups.
  const auto from = utc("2026-12-03T00:00:00Z");
  const auto to = utc("2026-12-04T00:00:00Z");
  auto raw = gpuHealthHistory(db, "GPU-R", from, to, h::Resolution::kRaw);
  auto hourly = gpuHealthHistory(db, "GPU-R", from, to, h::Resolution::kHourly);
  auto daily = gpuHealthHistory(db, "GPU-R", from, to, h::Resolution::kDaily);
  REQUIRE_OK(raw);
  REQUIRE_OK(hourly);
  REQUIRE_OK(daily);
  CHECK(raw->points.size() == 4);
  REQUIRE(hourly->points.size() == 2);
  CHECK(hourly->points[0].at == "2026-12-03T10:00:00.000000Z");
  CHECK(*hourly->points[0].temperature_c.avg() == Approx(184.0 / 3));
  REQUIRE(daily->points.size() == 1);
  CHECK(daily->points[0].samples == 4);
  CHECK(raw->points[3].pcie_replays == 7);
  CHECK(raw->points[3].pcie_replay_errors == 10);
  CHECK(hourly->points[1].pcie_replays == 7);
  CHECK_FALSE(hourly->points[1].pcie_replay_errors);
  const auto& d = daily->points[0];
  CHECK(d.hbm_temperature_c.count == 4);
  CHECK(d.hbm_temperature_c.max == 76);
  CHECK(*d.hbm_temperature_c.avg() == Approx(73));
  CHECK(*d.mem_clock_mhz.avg() == Approx(2619));
  CHECK(d.gpu_utilization_pct.min == 70);
  CHECK(d.pcie_replays == 10);

  for (auto by :
       {HealthGroupBy::kNode, HealthGroupBy::kRack, HealthGroupBy::kRow, HealthGroupBy::kSite}) {
    for (auto res : {h::Resolution::kRaw, h::Resolution::kHourly, h::Resolution::kDaily}) {
      auto groups = healthRollups(db, by, from, to, res);
      REQUIRE_OK(groups);
      REQUIRE(groups->size() == 1);
      const auto& g = (*groups)[0];
      CHECK(g.site == "dc1");
      CHECK(g.gpus == 2);
      CHECK(g.samples == 5);
      CHECK(g.temperature_c.max == 90);
      CHECK(g.temperature_c.min == 50);
      CHECK(g.healthy_gpus == 2);
      CHECK(g.hbm_temperature_c.count == 4);  // GPU-S's late reading had none
      CHECK(g.hbm_temperature_c.max == 76);
      CHECK(g.gpu_utilization_pct.min == 70);
      CHECK(g.pcie_replays == 10);
      CHECK(g.row == (by == HealthGroupBy::kSite ? "" : "row-1"));
      CHECK(g.rack == (by == HealthGroupBy::kNode || by == HealthGroupBy::kRack ? "R07" : ""));
      CHECK(g.node_id == (by == HealthGroupBy::kNode ? std::optional<Id>(node.id) : std::nullopt));
    }
  }
}

TEST_CASE("retention drops whole partitions and never deletes rows",
          "[integration][inventory][health]") {
  auto inv = inventory_test::freshInventory();
  auto& db = *inv.db;
  auto node = makeNode(db, "NODE-T1");
  // Readings on 3 and 4 December; on 18 December the 3rd is past the 14 days, the 4th is not.
  ingest(db, node.id, batchAt(utc("2026-12-03T10:00:00Z"), {reading("GPU-T", 0, 0)}));
  ingest(db, node.id, batchAt(utc("2026-12-04T10:00:00Z"), {reading("GPU-T", 0, 0)}));
  CHECK(count(inv.url, "gpu_health_samples") == 2);
  const std::string before_stats =
      scalar(inv.url,
             "SELECT n_tup_del FROM pg_stat_user_tables WHERE relname = "
             "'gpu_health_samples_20261204'");

  auto dropped = applyHealthRetention(db, h::dayOf(utc("2026-12-18T00:00:00Z")), {});
  REQUIRE_OK(dropped);
  CHECK(*dropped == std::vector<std::string>{"gpu_health_samples_20261203"});
  CHECK(partitionsOf(inv.url, "gpu_health_samples") == "gpu_health_samples_20261204");
  CHECK(scalar(inv.url, "SELECT to_regclass('gpu_health_samples_20261203') IS NULL") == "t");
  CHECK(count(inv.url, "gpu_health_samples") == 1);
  CHECK(scalar(inv.url,
               "SELECT n_tup_del FROM pg_stat_user_tables WHERE relname = "
               "'gpu_health_samples_20261204'") == before_stats);
  // Events stay, whatever the retention; rows are never deleted one by one.
  CHECK(count(inv.url, "gpu_health_events") == 1);
  CHECK_THROWS_WITH(scalar(inv.url, "DELETE FROM gpu_health_samples"),
                    Catch::Contains("append-only"));
  CHECK_THROWS_WITH(scalar(inv.url, "DELETE FROM gpu_health_events"),
                    Catch::Contains("append-only"));
  auto again = applyHealthRetention(db, h::dayOf(utc("2026-12-18T00:00:00Z")), {});
  REQUIRE_OK(again);
  CHECK(again->empty());
}

TEST_CASE("periodic upkeep makes partitions ahead, rolls up and applies retention",
          "[integration][inventory][health]") {
  auto inv = inventory_test::freshInventory();
  auto& db = *inv.db;
  auto node = makeNode(db, "NODE-M1");
  ingest(db, node.id, batchAt(utc("2026-12-04T10:00:00Z"), {reading("GPU-M", 0, 0)}));
  const auto later = utc("2026-12-19T01:00:00Z");
  auto run = maintainHealthHistory(db, later, {});
  REQUIRE_OK(run);
  CHECK(run->created == std::vector<std::string>{"gpu_health_samples_20261219",
                                                 "gpu_health_samples_20261220",
                                                 "gpu_health_samples_20261221"});
  CHECK(run->rollup.hourly_buckets == 1);
  CHECK(run->rollup.daily_buckets == 1);
  // 4 December is past the 14 days; its hours and day stay.
  CHECK(run->dropped == std::vector<std::string>{"gpu_health_samples_20261204"});
  CHECK(count(inv.url, "gpu_health_hourly") == 1);
  CHECK(count(inv.url, "gpu_health_daily") == 1);
  auto hourly = gpuHealthHistory(db, "GPU-M", utc("2026-12-04T00:00:00Z"),
                                 utc("2026-12-05T00:00:00Z"), h::Resolution::kHourly);
  REQUIRE_OK(hourly);
  CHECK(hourly->points.size() == 1);
  auto again = maintainHealthHistory(db, later, {});
  REQUIRE_OK(again);
  CHECK(again->created.empty());
  CHECK(again->rollup.hourly_buckets == 0);
  CHECK(again->dropped.empty());
}

namespace {

// Every column of every reading of [from, to), through the view every read uses, as one digest:
// equal before and after compaction means nothing a reader gets changed.
std::string readingsDigest(const std::string& url, const char* from, const char* to) {
  return scalar(url, std::string("SELECT md5(coalesce(string_agg(row_to_json(r)::text, '|' "
                                 "ORDER BY r.gpu_serial, r.sampled_at, r.node_id), '')) FROM "
                                 "gpu_health_readings r WHERE r.sampled_at >= '") +
                         from + "' AND r.sampled_at < '" + to + "'");
}

// A reading at `at` with every kind of field: some missing, counters moving, XIDs, a pending
// remap.
h::GpuSample fullReading(const std::string& serial, int i, h::Seconds at) {
  auto g = reading(serial, 10u + static_cast<unsigned>(i / 3), 100u + static_cast<unsigned>(i));
  if (i % 4 != 0) g.temperature_c = 60.5 + i % 7;
  if (i % 5 == 0) g.power_w.reset();
  g.hbm_temperature_c = 70 + i % 3;
  g.mem_clock_mhz = 2619;
  if (i % 2 == 0) g.gpu_utilization_pct = 90 + i % 10;
  g.clock_event_reasons = i % 6 == 0 ? 0x40 : 0;
  g.counters[static_cast<std::size_t>(h::Counter::kNvlinkCrcErrors)] =
      5u + static_cast<unsigned>(i);
  g.counters[static_cast<std::size_t>(h::Counter::kPcieReplayErrors)] =
      static_cast<unsigned>(i / 2);
  g.remap_pending = i % 9 == 0;
  if (i % 8 == 0) g.xids = {{31, at}};
  return g;
}

}  // namespace

TEST_CASE("compaction moves a closed day into arrays without changing a thing a reader gets",
          "[integration][inventory][health][compaction]") {
  auto inv = inventory_test::freshInventory();
  auto& db = *inv.db;
  auto a = makeNode(db, "NODE-C1");
  auto b = makeNode(db, "NODE-C2");
  // Two GPUs over 1 December, every 10 minutes; GPU-C2 moves from node A to B at noon.
  const auto start = utc("2026-12-01T00:00:00Z");
  for (int i = 0; i < 144; ++i) {
    const auto at = start + std::chrono::minutes{10 * i};
    const bool moved = i >= 72;
    auto first = fullReading("GPU-C1", i, at);
    auto second = fullReading("GPU-C2", i + 1, at);
    REQUIRE_OK(ingestHealthBatch(db, a.id, batchAt(at, {first}), at + 1s));
    REQUIRE_OK(ingestHealthBatch(db, moved ? b.id : a.id, batchAt(at, {second}), at + 1s));
  }
  // And a reading on 2 December, which stays raw.
  REQUIRE_OK(ingestHealthBatch(db, a.id,
                               batchAt(utc("2026-12-02T08:00:00Z"),
                                       {fullReading("GPU-C1", 200, utc("2026-12-02T08:00:00Z"))}),
                               utc("2026-12-02T08:00:01Z")));
  REQUIRE_OK(rollUpHealth(db, utc("2026-12-03T00:00:00Z")));
  const auto digest = readingsDigest(inv.url, "2026-11-30", "2026-12-03");
  const auto day_digest = readingsDigest(inv.url, "2026-12-01T05:30:00Z", "2026-12-01T07:10:00Z");
  auto before = gpuHealthHistory(db, "GPU-C2", utc("2026-12-01T05:30:00Z"),
                                 utc("2026-12-01T13:10:00Z"), h::Resolution::kRaw);
  REQUIRE_OK(before);
  auto fleet_before = healthRollups(db, HealthGroupBy::kNode, utc("2026-12-01T00:00:00Z"),
                                    utc("2026-12-02T00:00:00Z"), h::Resolution::kRaw);
  REQUIRE_OK(fleet_before);
  const std::string hourly_before =
      scalar(inv.url,
             "SELECT md5(string_agg(row_to_json(h)::text, '|' ORDER BY gpu_serial, bucket, "
             "node_id)) FROM gpu_health_hourly h");

  // On 3 December, 1 December is compacted (ended a day ago); 2 December is not.
  auto done = compactHealthHistory(db, h::dayOf(utc("2026-12-03T00:30:00Z")), {});
  REQUIRE_OK(done);
  CHECK(done->compacted == std::vector<std::string>{"gpu_health_samples_20261201"});
  CHECK(done->readings == 288);
  CHECK(partitionsOf(inv.url, "gpu_health_samples") == "gpu_health_samples_20261202");
  CHECK(partitionsOf(inv.url, "gpu_health_compact") == "gpu_health_compact_20261201");
  // One row per GPU, hour and node: 24 for GPU-C1, 12 + 12 for GPU-C2 (it moved at noon).
  CHECK(count(inv.url, "gpu_health_compact") == 48);
  CHECK(readingsDigest(inv.url, "2026-11-30", "2026-12-03") == digest);
  CHECK(readingsDigest(inv.url, "2026-12-01T05:30:00Z", "2026-12-01T07:10:00Z") == day_digest);

  auto after = gpuHealthHistory(db, "GPU-C2", utc("2026-12-01T05:30:00Z"),
                                utc("2026-12-01T13:10:00Z"), h::Resolution::kRaw);
  REQUIRE_OK(after);
  REQUIRE(after->points.size() == before->points.size());
  CHECK(after->points.size() == 46);
  for (std::size_t i = 0; i < after->points.size(); ++i) {
    INFO(i);
    CHECK(after->points[i].at == before->points[i].at);
    CHECK(after->points[i].node_id == before->points[i].node_id);
    CHECK(after->points[i].temperature_c.sum == before->points[i].temperature_c.sum);
    CHECK(after->points[i].ecc_corrected == before->points[i].ecc_corrected);
    CHECK(after->points[i].pcie_replays == before->points[i].pcie_replays);
    CHECK(after->points[i].pcie_replay_errors == before->points[i].pcie_replay_errors);
    CHECK(after->points[i].source == before->points[i].source);
  }
  auto fleet_after = healthRollups(db, HealthGroupBy::kNode, utc("2026-12-01T00:00:00Z"),
                                   utc("2026-12-02T00:00:00Z"), h::Resolution::kRaw);
  REQUIRE_OK(fleet_after);
  REQUIRE(fleet_after->size() == fleet_before->size());
  for (std::size_t i = 0; i < fleet_after->size(); ++i) {
    CHECK((*fleet_after)[i].samples == (*fleet_before)[i].samples);
    CHECK((*fleet_after)[i].temperature_c.sum == (*fleet_before)[i].temperature_c.sum);
    CHECK((*fleet_after)[i].ecc_corrected == (*fleet_before)[i].ecc_corrected);
  }

  // Every hour of 1 December (36 of node and hour) rolled up again reads the arrays: the same.
  CHECK(scalar(inv.url,
               "WITH due AS (INSERT INTO gpu_health_rollup_due (level, bucket, node_id) "
               "SELECT DISTINCT 'hourly', bucket, node_id FROM gpu_health_hourly "
               "WHERE bucket < '2026-12-02' RETURNING 1) SELECT count(*) FROM due") == "36");
  REQUIRE_OK(rollUpHealth(db, utc("2026-12-03T01:00:00Z")));
  CHECK(scalar(inv.url,
               "SELECT md5(string_agg(row_to_json(h)::text, '|' ORDER BY gpu_serial, "
               "bucket, node_id)) FROM gpu_health_hourly h") == hourly_before);

  // A reading for 1 December after it was compacted (a GPU silent since) lands raw beside the
  // arrays, is read with them, and the next compaction merges it in.
  auto late = fullReading("GPU-C3", 7, utc("2026-12-01T23:59:00Z"));
  REQUIRE_OK(ingestHealthBatch(db, a.id, batchAt(utc("2026-12-01T23:59:00Z"), {late}),
                               utc("2026-12-02T23:00:00Z")));
  CHECK(count(inv.url, "gpu_health_readings") == 290);
  auto again = compactHealthHistory(db, h::dayOf(utc("2026-12-03T06:00:00Z")), {});
  REQUIRE_OK(again);
  CHECK(again->readings == 1);
  CHECK(count(inv.url, "gpu_health_readings") == 290);
  CHECK(count(inv.url, "gpu_health_compact") == 49);

  // Nothing to do the next time; retention drops the compact partition with the raw days.
  auto idle = compactHealthHistory(db, h::dayOf(utc("2026-12-03T06:00:00Z")), {});
  REQUIRE_OK(idle);
  CHECK(idle->compacted.empty());
  CHECK_THROWS_WITH(scalar(inv.url, "DELETE FROM gpu_health_compact"),
                    Catch::Contains("append-only"));
  auto dropped = applyHealthRetention(db, h::dayOf(utc("2026-12-16T00:00:00Z")), {});
  REQUIRE_OK(dropped);
  CHECK(std::find(dropped->begin(), dropped->end(), "gpu_health_compact_20261201") !=
        dropped->end());
  CHECK(count(inv.url, "gpu_health_compact") == 0);
}

TEST_CASE("the fleet roll-up of a raw range reads whole hours from their roll-ups, exactly",
          "[integration][inventory][health]") {
  auto inv = inventory_test::freshInventory();
  auto& db = *inv.db;
  auto rack = makeRack(db, "R09");
  auto node = makeNode(db, "NODE-F1", "", rack, 1);
  // GPU-F1 every 10 minutes from 10:00 to 14:50, 30 readings of varying temperature.
  const auto t0 = utc("2026-12-03T10:00:00Z");
  for (int i = 0; i < 30; ++i) {
    auto g = reading("GPU-F1", static_cast<std::uint64_t>(i), 0);
    g.temperature_c = 50 + (i * 7) % 23;
    const auto at = t0 + std::chrono::minutes{10 * i};
    REQUIRE_OK(ingestHealthBatch(db, node.id, batchAt(at, {g}), at + 1s));
  }
  // At 14:30 the hours 10 to 13 are rolled up; 14 is not over.
  REQUIRE_OK(rollUpHealth(db, utc("2026-12-03T14:30:00Z")));
  // A late reading of another GPU for 11:xx makes that hour due again.
  auto late = reading("GPU-F2", 0, 0);
  late.temperature_c = 95;
  REQUIRE_OK(ingestHealthBatch(db, node.id, batchAt(utc("2026-12-03T11:42:00Z"), {late}),
                               utc("2026-12-03T14:31:00Z")));

  // [10:25, 14:35): edges read raw, 11:00 due (raw), 12:00 and 13:00 from their roll-ups.
  const char* from = "2026-12-03T10:25:00Z";
  const char* to = "2026-12-03T14:35:00Z";
  CHECK(scalar(inv.url, "SELECT count(*) FROM gpu_health_rollup_due WHERE level = 'hourly'") ==
        "2");  // 11:00 again, and 14:00
  auto sql = [&](const std::string& what) {
    return std::stod(scalar(inv.url, "SELECT " + what +
                                         " FROM gpu_health_readings WHERE sampled_at >= '" + from +
                                         "' AND sampled_at < '" + to + "'"));
  };
  auto groups = healthRollups(db, HealthGroupBy::kRack, utc(from), utc(to), h::Resolution::kRaw);
  REQUIRE_OK(groups);
  REQUIRE(groups->size() == 1);
  const auto& g = (*groups)[0];
  CHECK(g.samples == sql("count(*)"));
  CHECK(g.gpus == sql("count(DISTINCT gpu_serial)"));
  CHECK(g.temperature_c.sum == Approx(sql("sum(temperature_c)")));
  CHECK(g.temperature_c.min == sql("min(temperature_c)"));
  CHECK(g.temperature_c.max == sql("max(temperature_c)"));
  CHECK(g.ecc_corrected == sql("sum(ecc_corrected_delta)"));
  // And they do come from the roll-ups: a roll-up of a whole hour not due, changed behind the
  // readings' back, shows; one still due (11:00) is read raw, so changing it shows nothing.
  scalar(inv.url,
         "UPDATE gpu_health_hourly SET samples = samples + 1000 WHERE bucket = "
         "'2026-12-03T12:00:00Z' RETURNING 1");
  scalar(inv.url,
         "UPDATE gpu_health_hourly SET samples = samples + 50 WHERE bucket = "
         "'2026-12-03T11:00:00Z' RETURNING 1");
  auto tampered = healthRollups(db, HealthGroupBy::kRack, utc(from), utc(to), h::Resolution::kRaw);
  REQUIRE_OK(tampered);
  CHECK((*tampered)[0].samples == g.samples + 1000);
  scalar(inv.url,
         "UPDATE gpu_health_hourly SET samples = samples - 1000 WHERE bucket = "
         "'2026-12-03T12:00:00Z' RETURNING 1");
  // Within one hour, and exactly on hour boundaries, the same holds.
  for (auto [a, b] : {std::pair{"2026-12-03T12:05:00Z", "2026-12-03T12:45:00Z"},
                      std::pair{"2026-12-03T11:00:00Z", "2026-12-03T14:00:00Z"},
                      std::pair{"2026-12-03T10:30:00Z", "2026-12-03T11:15:00Z"}}) {
    INFO(a << " .. " << b);
    auto range = healthRollups(db, HealthGroupBy::kNode, utc(a), utc(b), h::Resolution::kRaw);
    REQUIRE_OK(range);
    REQUIRE(range->size() == 1);
    CHECK(std::to_string((*range)[0].samples) ==
          scalar(inv.url, std::string("SELECT count(*) FROM gpu_health_readings WHERE "
                                      "sampled_at >= '") +
                              a + "' AND sampled_at < '" + b + "'"));
  }
}

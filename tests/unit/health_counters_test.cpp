// GPU counters across driver reloads, XID bursts and the health class (inventory/health/).
#include <catch2/catch.hpp>

#include "inventory/health/counters.hpp"
#include "inventory/health/events.hpp"
#include "inventory/health/health_class.hpp"
#include "inventory/health/xid_bursts.hpp"

using namespace inventory::health;
using namespace std::chrono_literals;

namespace {

PerCounter<std::optional<std::uint64_t>> reading(std::uint64_t corrected_volatile,
                                                 std::uint64_t corrected_aggregate) {
  PerCounter<std::optional<std::uint64_t>> raw{};
  raw[static_cast<std::size_t>(Counter::kEccCorrectedVolatile)] = corrected_volatile;
  raw[static_cast<std::size_t>(Counter::kEccCorrectedAggregate)] = corrected_aggregate;
  return raw;
}

std::uint64_t lifetime(const CounterState& s, Counter c) {
  return s.lifetime[static_cast<std::size_t>(c)];
}

Seconds at(int s) {
  return Seconds{std::chrono::seconds{1'800'000'000 + s}};
}

}  // namespace

TEST_CASE("a counter's first reading is a baseline, later ones add their difference",
          "[unit][health]") {
  CHECK(stepCounter(CounterKind::kVolatile, std::nullopt, 7, false).baseline);
  CHECK(stepCounter(CounterKind::kVolatile, std::nullopt, 7, false).increment == 7);
  auto step = stepCounter(CounterKind::kVolatile, 7, 10, false);
  CHECK(step.increment == 3);
  CHECK_FALSE(step.reset);
  CHECK(stepCounter(CounterKind::kPersistent, 10, 10, false).increment == 0);
}

TEST_CASE("a counter below its last value restarted: the increment is the new raw value",
          "[unit][health]") {
  auto v = stepCounter(CounterKind::kVolatile, 10, 3, false);
  CHECK(v.reset);
  CHECK(v.increment == 3);
  // Cleared InfoROM counters restart too; never a negative (wrapped) difference.
  auto p = stepCounter(CounterKind::kPersistent, 10, 0, false);
  CHECK(p.reset);
  CHECK(p.increment == 0);
}

TEST_CASE(
    "a new driver epoch restarts volatile counters even when they climbed past the last value",
    "[unit][health]") {
  auto v = stepCounter(CounterKind::kVolatile, 4, 6, true);
  CHECK(v.reset);
  CHECK(v.increment == 6);
  // The aggregate counter survives the reload: its difference still holds.
  auto p = stepCounter(CounterKind::kPersistent, 40, 46, true);
  CHECK_FALSE(p.reset);
  CHECK(p.increment == 6);
}

TEST_CASE("lifetime totals across a driver reload count every error once", "[unit][health]") {
  CounterState s;
  auto a = advanceCounters(s, reading(5, 100), "boot-1");
  CHECK(lifetime(a.state, Counter::kEccCorrectedVolatile) == 5);
  CHECK(lifetime(a.state, Counter::kEccCorrectedAggregate) == 100);
  CHECK(newEccErrors(a, false) == 0);  // the baseline is history, not news
  CHECK_FALSE(a.driver_reloaded);

  auto b = advanceCounters(a.state, reading(8, 103), "boot-1");
  CHECK(newEccErrors(b, false) == 3);
  CHECK(lifetime(b.state, Counter::kEccCorrectedVolatile) == 8);

  // Driver reload: the volatile counter is back at 2, the aggregate one moved on by 2.
  auto c = advanceCounters(b.state, reading(2, 105), "boot-2");
  CHECK(c.driver_reloaded);
  CHECK(c.state.resets == 1);
  CHECK(newEccErrors(c, false) == 2);
  CHECK(lifetime(c.state, Counter::kEccCorrectedVolatile) == 10);
  CHECK(lifetime(c.state, Counter::kEccCorrectedAggregate) == 105);

  // The same reading again (a retried batch would be refused earlier; here: no change).
  auto d = advanceCounters(c.state, reading(2, 105), "boot-2");
  CHECK_FALSE(d.driver_reloaded);
  CHECK(lifetime(d.state, Counter::kEccCorrectedVolatile) == 10);
  CHECK(d.state.resets == 1);
}

TEST_CASE("counters absent from a reading keep their last value", "[unit][health]") {
  CounterState s;
  auto a = advanceCounters(s, reading(5, 100), "");
  PerCounter<std::optional<std::uint64_t>> none{};
  auto b = advanceCounters(a.state, none, "");
  CHECK(b.state.last_raw[static_cast<std::size_t>(Counter::kEccCorrectedVolatile)] == 5u);
  CHECK_FALSE(b.steps[static_cast<std::size_t>(Counter::kEccCorrectedVolatile)]);
  // Without an epoch, only the value rule detects a reload.
  auto c = advanceCounters(b.state, reading(1, 101), "");
  CHECK(c.driver_reloaded);
  CHECK(lifetime(c.state, Counter::kEccCorrectedVolatile) == 6);
}

TEST_CASE("counter names round-trip", "[unit][health]") {
  for (std::size_t i = 0; i < kCounterCount; ++i) {
    CHECK(counterNamed(nameOf(counterAt(i))) == counterAt(i));
  }
  CHECK_FALSE(counterNamed("ecc_bogus"));
  CHECK(kindOf(Counter::kEccCorrectedAggregate) == CounterKind::kPersistent);
  CHECK(kindOf(Counter::kNvlinkCrcErrors) == CounterKind::kVolatile);
}

TEST_CASE("the same XID within the window is one burst", "[unit][health]") {
  auto update = groupXids({}, {{79, at(0)}, {79, at(30)}, {13, at(40)}, {79, at(400)}}, 300s);
  REQUIRE(update.opened.size() == 3);
  CHECK(update.extended.empty());
  CHECK(update.opened[0].xid == 79);
  CHECK(update.opened[0].count == 2);
  CHECK(update.opened[0].last_at == at(30));
  CHECK(update.opened[1].xid == 13);
  CHECK(update.opened[2].xid == 79);  // 370 s after the last one: a new burst
  CHECK(update.opened[2].first_at == at(400));
}

TEST_CASE("a stored burst grows across batches; an old one is closed", "[unit][health]") {
  std::vector<XidBurst> latest{{41, 79, at(0), at(100), 5}, {42, 13, at(0), at(10), 1}};
  auto update = groupXids(latest, {{13, at(1000)}, {79, at(200)}, {79, at(150)}}, 300s);
  REQUIRE(update.extended.size() == 1);
  CHECK(update.extended[0].id == 41);
  CHECK(update.extended[0].count == 7);
  CHECK(update.extended[0].last_at == at(200));
  REQUIRE(update.opened.size() == 1);
  CHECK(update.opened[0].xid == 13);
  CHECK_FALSE(update.opened[0].id);
}

TEST_CASE("health class follows NVIDIA's actions", "[unit][health]") {
  GpuSample g;
  CounterAdvance none;
  CHECK(classify(g, none) == HealthClass::kHealthy);
  g.remap_pending = true;
  CHECK(classify(g, none) == HealthClass::kWarning);
  g.remap_failure = true;
  CHECK(classify(g, none) == HealthClass::kCritical);

  GpuSample x;
  x.xids = {{13, at(0)}};
  CHECK(classify(x, none) == HealthClass::kWarning);
  x.xids.push_back({79, at(1)});
  CHECK(classify(x, none) == HealthClass::kCritical);

  PerCounter<std::optional<std::uint64_t>> raw{};
  raw[static_cast<std::size_t>(Counter::kEccUncorrectedVolatile)] = 0;
  auto first = advanceCounters({}, raw, "");
  raw[static_cast<std::size_t>(Counter::kEccUncorrectedVolatile)] = 1;
  auto second = advanceCounters(first.state, raw, "");
  CHECK(classify(GpuSample{}, first) == HealthClass::kHealthy);
  CHECK(classify(GpuSample{}, second) == HealthClass::kCritical);
}

TEST_CASE("a reading's events: first sighting, move, reset, errors and thresholds",
          "[unit][health]") {
  GpuSample g;
  g.serial = "GPU-E";
  g.driver_epoch = "boot-1";
  g.counters = reading(5, 100);
  auto first = advanceCounters({}, g.counters, g.driver_epoch);
  auto events = readingEvents(g, PriorReading{}, 7, first);
  REQUIRE(events.size() == 1);
  CHECK(events[0].kind == "first_seen");
  CHECK(events[0].detail_json.find("\"ecc_corrected_aggregate\":100") != std::string::npos);

  PriorReading prior{true, 7, "boot-1", false, false};
  g.driver_epoch = "boot-2";
  g.counters = reading(1, 101);
  g.remap_pending = true;
  g.counters[static_cast<std::size_t>(Counter::kRemappedCorrectable)] = 2;
  auto state = first.state;
  state.last_raw[static_cast<std::size_t>(Counter::kRemappedCorrectable)] = 1;
  auto next = advanceCounters(state, g.counters, g.driver_epoch);
  events = readingEvents(g, prior, 8, next);
  std::vector<std::string> kinds;
  for (const auto& e : events) kinds.push_back(e.kind);
  CHECK(kinds == std::vector<std::string>{"gpu_moved", "counter_reset", "ecc_errors",
                                          "rows_remapped", "threshold_crossed"});
  CHECK(events[1].detail_json.find("ecc_corrected_volatile") != std::string::npos);
  CHECK(events[1].detail_json.find("\"previous_epoch\":\"boot-1\"") != std::string::npos);
  CHECK(events[2].detail_json == R"({"corrected":1,"uncorrected":0})");
  CHECK(events[4].detail_json == R"({"signal":"remap_pending"})");

  // Nothing new: no events.
  PriorReading same{true, 8, "boot-2", true, false};
  auto quiet = advanceCounters(next.state, g.counters, g.driver_epoch);
  CHECK(readingEvents(g, same, 8, quiet).empty());
}

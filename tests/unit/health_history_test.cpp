// Health history storage rules: resolution per range, roll-up arithmetic, partition names and
// retention, batch validation, UTC timestamps (inventory/health/).
#include <catch2/catch.hpp>

#include "inventory/health/partitions.hpp"
#include "inventory/health/retention.hpp"
#include "inventory/health/rollup_math.hpp"
#include "inventory/health/sample.hpp"
#include "inventory/health/time.hpp"

using namespace inventory::health;
using namespace std::chrono;
using namespace std::chrono_literals;

namespace {

Seconds utc(const char* text) {
  auto t = parseUtc(text);
  REQUIRE(t);
  return *t;
}

Days ymd(int y, unsigned m, unsigned d) {
  return sys_days{year{y} / month{m} / d};
}

std::vector<std::string> names(const std::vector<Partition>& ps) {
  std::vector<std::string> out;
  for (const auto& p : ps) out.push_back(p.name);
  return out;
}

}  // namespace

TEST_CASE("UTC timestamps parse strictly and format canonically", "[unit][health]") {
  CHECK(formatUtc(utc("2026-12-04T10:00:00Z")) == "2026-12-04T10:00:00Z");
  CHECK(formatUtc(utc("2026-12-04T10:00:00.123456Z")) == "2026-12-04T10:00:00Z");
  CHECK(formatUtc(utc("2026-12-04T12:30:00+02:30")) == "2026-12-04T10:00:00Z");
  CHECK(formatUtc(utc("2026-12-04 10:00:00+0000")) == "2026-12-04T10:00:00Z");
  CHECK_FALSE(parseUtc("2026-12-04T10:00:00"));
  CHECK_FALSE(parseUtc("2026-02-30T10:00:00Z"));
  CHECK_FALSE(parseUtc("2026-12-04T25:00:00Z"));
  CHECK_FALSE(parseUtc("yesterday"));
  CHECK_FALSE(parseUtc("2026-12-04T10:00:00Zjunk"));
  CHECK(formatDay(dayOf(utc("2026-12-31T23:59:59Z"))) == "2026-12-31");
}

TEST_CASE("the whole hours of a range: what roll-ups answer, the edges read raw",
          "[unit][health]") {
  auto span = wholeHours(utc("2026-12-04T10:30:00Z"), utc("2026-12-05T10:30:00Z"));
  CHECK(formatUtc(span.first) == "2026-12-04T11:00:00Z");
  CHECK(formatUtc(span.second) == "2026-12-05T10:00:00Z");
  span = wholeHours(utc("2026-12-04T10:00:00Z"), utc("2026-12-04T12:00:00Z"));
  CHECK(formatUtc(span.first) == "2026-12-04T10:00:00Z");
  CHECK(formatUtc(span.second) == "2026-12-04T12:00:00Z");
  // Across one boundary, no whole hour: both edges, nothing from the roll-ups.
  span = wholeHours(utc("2026-12-04T10:30:00Z"), utc("2026-12-04T11:15:00Z"));
  CHECK(span.first == span.second);
  CHECK(formatUtc(span.first) == "2026-12-04T11:00:00Z");
  // Within one hour: all of it raw ([from, to) then [to, to)).
  span = wholeHours(utc("2026-12-04T10:30:00Z"), utc("2026-12-04T10:45:00Z"));
  CHECK(formatUtc(span.first) == "2026-12-04T10:45:00Z");
  CHECK(formatUtc(span.second) == "2026-12-04T10:45:00Z");
}

TEST_CASE("a range is answered at the finest resolution that holds it", "[unit][health]") {
  const RetentionSettings s;
  const Seconds now = utc("2026-12-04T10:00:00Z");
  CHECK(chooseResolution(now - 6h, now, now, s) == Resolution::kRaw);
  CHECK(chooseResolution(now - 48h, now, now, s) == Resolution::kRaw);
  CHECK(chooseResolution(now - 49h, now, now, s) == Resolution::kHourly);
  // Short but older than the raw retention: raw samples are gone.
  CHECK(chooseResolution(now - days{20}, now - days{20} + 1h, now, s) == Resolution::kHourly);
  CHECK(chooseResolution(now - days{31}, now, now, s) == Resolution::kHourly);
  CHECK(chooseResolution(now - days{32}, now, now, s) == Resolution::kDaily);
  CHECK(chooseResolution(now - days{100}, now - days{99}, now, s) == Resolution::kDaily);
  RetentionSettings tight;
  tight.raw_days = 1;
  CHECK(chooseResolution(now - 30h, now, now, tight) == Resolution::kHourly);
  CHECK(std::string(toString(Resolution::kHourly)) == "hourly");
}

TEST_CASE("a resolution asked for answers only the ranges it holds", "[unit][health]") {
  const RetentionSettings s;
  const Seconds now = utc("2026-12-04T10:00:00Z");
  CHECK(resolutionNamed("daily") == Resolution::kDaily);
  CHECK(resolutionNamed("raw") == Resolution::kRaw);
  CHECK_FALSE(resolutionNamed("weekly"));
  CHECK_FALSE(resolutionNamed("Raw"));
  // Coarser than needed: always.
  CHECK(resolutionCovers(Resolution::kDaily, now - 6h, now, now, s));
  CHECK(resolutionCovers(Resolution::kHourly, now - 6h, now, now, s));
  // Finer: within its span and retention only.
  CHECK(resolutionCovers(Resolution::kRaw, now - 48h, now, now, s));
  CHECK_FALSE(resolutionCovers(Resolution::kRaw, now - 49h, now, now, s));
  CHECK_FALSE(resolutionCovers(Resolution::kRaw, now - days{20}, now - days{20} + 1h, now, s));
  CHECK(resolutionCovers(Resolution::kHourly, now - days{31}, now, now, s));
  CHECK_FALSE(resolutionCovers(Resolution::kHourly, now - days{32}, now, now, s));
}

TEST_CASE("merged stats equal the stats of all the values", "[unit][health]") {
  const std::vector<double> first{61, 65.5, 59};
  const std::vector<double> second{70, 58.5};
  Stat a, b, all;
  for (double v : first) a.add(v), all.add(v);
  for (double v : second) b.add(v), all.add(v);
  const Stat m = merged(a, b);
  CHECK(m.count == all.count);
  CHECK(m.sum == Approx(all.sum));
  CHECK(m.min == 58.5);
  CHECK(m.max == 70);
  CHECK(*m.avg() == Approx(314.0 / 5));
  CHECK(merged(a, Stat{}).count == a.count);
  CHECK(merged(Stat{}, a).min == a.min);
  CHECK_FALSE(Stat{}.avg());
}

TEST_CASE("partitions: daily raw, monthly hourly, yearly daily", "[unit][health]") {
  auto raw = partitionFor(Resolution::kRaw, ymd(2026, 12, 4));
  CHECK(raw.name == "gpu_health_samples_20261204");
  CHECK(raw.to == ymd(2026, 12, 5));
  auto hourly = partitionFor(Resolution::kHourly, ymd(2026, 12, 4));
  CHECK(hourly.name == "gpu_health_hourly_202612");
  CHECK(hourly.from == ymd(2026, 12, 1));
  CHECK(hourly.to == ymd(2027, 1, 1));
  auto daily = partitionFor(Resolution::kDaily, ymd(2026, 12, 4));
  CHECK(daily.name == "gpu_health_daily_2026");
  CHECK(daily.to == ymd(2027, 1, 1));

  CHECK(names(partitionsCovering(Resolution::kRaw, ymd(2026, 12, 30), ymd(2027, 1, 2))) ==
        std::vector<std::string>{"gpu_health_samples_20261230", "gpu_health_samples_20261231",
                                 "gpu_health_samples_20270101", "gpu_health_samples_20270102"});
  CHECK(names(partitionsCovering(Resolution::kHourly, ymd(2026, 11, 30), ymd(2026, 12, 2))) ==
        std::vector<std::string>{"gpu_health_hourly_202611", "gpu_health_hourly_202612"});
  CHECK(partitionsCovering(Resolution::kRaw, ymd(2026, 12, 4), ymd(2026, 12, 3)).empty());
}

TEST_CASE("partition names parse back, and nothing else does", "[unit][health]") {
  auto p = parsePartition(Resolution::kRaw, "gpu_health_samples_20261204");
  REQUIRE(p);
  CHECK(p->from == ymd(2026, 12, 4));
  CHECK_FALSE(parsePartition(Resolution::kRaw, "gpu_health_samples_20261232"));
  CHECK_FALSE(parsePartition(Resolution::kRaw, "gpu_health_samples_default"));
  CHECK_FALSE(parsePartition(Resolution::kRaw, "gpu_health_hourly_202612"));
  CHECK(parsePartition(Resolution::kHourly, "gpu_health_hourly_202612"));
  CHECK_FALSE(parsePartition(Resolution::kHourly, "gpu_health_hourly_202613"));
  CHECK(parsePartition(Resolution::kDaily, "gpu_health_daily_2026"));
}

TEST_CASE("retention drops whole partitions past the cutoff and keeps the straddling one",
          "[unit][health]") {
  RetentionSettings s;  // raw 14 days, hourly 90, daily forever
  const Days today = ymd(2026, 12, 20);
  const std::vector<std::string> raw{"gpu_health_samples_20261204", "gpu_health_samples_20261205",
                                     "gpu_health_samples_20261206", "unrelated_table"};
  // The cutoff is 2026-12-06: the 4th and 5th ended by then, the 6th has not.
  CHECK(partitionsToDrop(Resolution::kRaw, raw, today, s) ==
        std::vector<std::string>{"gpu_health_samples_20261204", "gpu_health_samples_20261205"});
  const std::vector<std::string> hourly{"gpu_health_hourly_202608", "gpu_health_hourly_202609",
                                        "gpu_health_hourly_202612"};
  // Cutoff 2026-09-21: August ended before it, September straddles it.
  CHECK(partitionsToDrop(Resolution::kHourly, hourly, today, s) ==
        std::vector<std::string>{"gpu_health_hourly_202608"});
  CHECK(partitionsToDrop(Resolution::kDaily, {"gpu_health_daily_2001"}, today, s).empty());
  s.daily_days = 365;
  CHECK(partitionsToDrop(Resolution::kDaily, {"gpu_health_daily_2001"}, today, s).size() == 1);
}

TEST_CASE("batches with absurd, duplicated or out-of-window readings are refused by field",
          "[unit][health]") {
  const Seconds now = utc("2026-12-04T10:00:00Z");
  const IngestLimits limits;
  const RetentionSettings retention;
  NodeBatch ok{now - 30s, {GpuSample{}, GpuSample{}}};
  ok.gpus[0].serial = "GPU-0";
  ok.gpus[1].serial = "GPU-1";
  ok.gpus[1].temperature_c = 61;
  ok.gpus[1].xids = {{79, now - 60s}};
  REQUIRE(validateBatch(ok, now, limits, retention).ok());

  auto fieldOf = [&](NodeBatch b) {
    auto r = validateBatch(b, now, limits, retention);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().kind == common::ErrorKind::kInvalidArgument);
    return r.error().field;
  };
  auto b = ok;
  b.sampled_at = now + 1h;
  CHECK(fieldOf(b) == "sampled_at");
  b = ok;
  b.sampled_at = now - days{14} - 1s;
  CHECK(fieldOf(b) == "sampled_at");
  b.sampled_at = now - days{14};
  b.gpus[1].xids.clear();  // they would be after sampled_at
  CHECK(validateBatch(b, now, limits, retention).ok());
  RetentionSettings one_day;
  one_day.raw_days = 1;
  CHECK(validateBatch(ok, now, limits, one_day).ok());
  b = ok;
  b.gpus[1].temperature_c = 900;
  CHECK(fieldOf(b) == "gpus[1].temperature_c");
  b = ok;
  b.gpus[0].power_w = std::numeric_limits<double>::quiet_NaN();
  CHECK(fieldOf(b) == "gpus[0].power_w");
  b = ok;
  b.gpus[1].serial = "GPU-0";
  CHECK(fieldOf(b) == "gpus[1].serial");
  b = ok;
  b.gpus[0].serial.clear();
  CHECK(fieldOf(b) == "gpus[0].serial");
  b = ok;
  b.gpus[1].xids[0].at = now + 10s;
  CHECK(fieldOf(b) == "gpus[1].xids[0].at");
  b = ok;
  b.gpus[1].counters[static_cast<std::size_t>(Counter::kRetiredPages)] = 1ULL << 60;
  CHECK(fieldOf(b) == "gpus[1].retired_pages");
  b = ok;
  b.gpus.clear();
  CHECK(fieldOf(b) == "gpus");
  b = ok;
  b.gpus.resize(65);
  CHECK(fieldOf(b) == "gpus");
}

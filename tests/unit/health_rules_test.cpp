// The health policy's rules on known data (inventory/health/rules.hpp): each rule flags what it
// should, with the reason and evidence, and stays quiet on healthy data.
#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <nlohmann/json.hpp>

#include "inventory/health/rules.hpp"

using namespace inventory::health;
using namespace std::chrono;
using namespace std::chrono_literals;

namespace {

Seconds utc(const char* text) {
  auto t = parseUtc(text);
  REQUIRE(t);
  return *t;
}

const Days kDay0 = sys_days{year{2026} / 11 / 1};

DayAggregate dayN(int i, std::int64_t ecc_corrected = 0) {
  DayAggregate d;
  d.day = kDay0 + days{i};
  d.samples = 2880;
  d.ecc_corrected = ecc_corrected;
  return d;
}

GpuEvidence evidenceAt(Seconds now) {
  GpuEvidence e;
  e.serial = "GPU-1";
  e.now = now;
  return e;
}

std::vector<std::string> rulesOf(const std::vector<FlagDraft>& drafts) {
  std::vector<std::string> out;
  for (const auto& d : drafts) out.push_back(d.rule);
  return out;
}

const FlagDraft* find(const std::vector<FlagDraft>& drafts, const std::string& rule) {
  for (const auto& d : drafts) {
    if (d.rule == rule) return &d;
  }
  return nullptr;
}

XidBurst burst(int xid, Seconds at, long long count = 1) {
  return XidBurst{std::nullopt, xid, at, at, count};
}

PeerReading reading(std::string serial, double temp, double clock, double power) {
  return PeerReading{std::move(serial), 2880, temp, clock, power};
}

// 16 GPUs of one rack, a little spread, over `n` consecutive days; `tweak` changes one.
PeerGroup rack(int n, const std::function<void(int, PeerReading&)>& tweak = {}) {
  PeerGroup g;
  g.label = "rack r1, H100";
  for (int d = 0; d < n; ++d) {
    PeerDay pd;
    pd.day = kDay0 + days{d};
    for (int i = 0; i < 16; ++i) {
      auto r = reading("GPU-" + std::to_string(i), 60 + (i % 5) * 0.8, 1750 - (i % 4) * 6,
                       500 + (i % 3) * 8);
      if (tweak) tweak(d, r);
      pd.gpus.push_back(r);
    }
    g.days.push_back(pd);
  }
  return g;
}

}  // namespace

TEST_CASE("the default policy: every rule has an id, a source and thresholds", "[unit][health]") {
  const Policy& p = defaultPolicy();
  REQUIRE(p.size() >= 10);
  for (const auto& r : p) {
    CHECK_FALSE(r.id.empty());
    CHECK_FALSE(r.source.empty());
  }
  CHECK(findRule(p, "nvidia.remap_failure")->action == FlagAction::kRmaCandidate);
  CHECK(findRule(p, "nvidia.remap_pending")->action == FlagAction::kResetAtIdle);
  CHECK(findRule(p, "nvidia.xid_drain")->xids == std::vector<int>{64, 79, 95});
  CHECK(findRule(p, "nvidia.xid48_dbe")->action == FlagAction::kDrain);
  CHECK(findRule(p, "no.such.rule") == nullptr);
}

TEST_CASE("robust statistics: median, MAD and the robust z-score", "[unit][health]") {
  CHECK(median({3, 1, 2}) == 2);
  CHECK(median({4, 1, 3, 2}) == 2.5);
  CHECK(medianAbsoluteDeviation({1, 2, 3, 4, 100}, 3) == 1);
  CHECK(robustZ(10, 5, 0.6745) == Approx(5));
  CHECK(robustZ(5, 5, 0) == 0);
  CHECK(robustZ(6, 5, 0) > 1e6);  // no spread: any deviation is extreme (floors guard it)
}

TEST_CASE("a healthy GPU raises no flag", "[unit][health]") {
  auto e = evidenceAt(utc("2026-11-30T00:10:00Z"));
  for (int i = 0; i < 29; ++i) e.days.push_back(dayN(i, i % 7 == 0 ? 3 : 0));
  e.counters = CounterSnapshot{utc("2026-11-30T00:09:30Z"), false, false};
  e.xid_bursts = {burst(13, utc("2026-11-20T10:00:00Z")), burst(43, utc("2026-11-25T10:00:00Z")),
                  burst(31, utc("2026-11-28T10:00:00Z"))};  // application errors only
  e.remaps = {{utc("2026-11-10T10:00:00Z"), 1}};            // one remap, once
  CHECK(evaluateGpu(defaultPolicy(), e).empty());
}

TEST_CASE("PCIe replays above DCGM's 8 a minute over an hour are flagged", "[unit][health]") {
  auto e = evidenceAt(utc("2026-11-30T12:10:00Z"));
  // A marginal link: a few replays most hours, one hour at 9 a minute.
  e.hourly_replays = {{utc("2026-11-30T02:00:00Z"), 30},
                      {utc("2026-11-30T07:00:00Z"), 540},
                      {utc("2026-11-30T09:00:00Z"), 120}};
  const auto drafts = evaluateGpu(defaultPolicy(), e);
  REQUIRE(rulesOf(drafts) == std::vector<std::string>{"nvidia.pcie_replay_rate"});
  CHECK(drafts[0].action == FlagAction::kRerunBurnIn);
  CHECK(drafts[0].raised_at == utc("2026-11-30T08:00:00Z"));  // the hour's end
  CHECK(drafts[0].reason ==
        "PCIe replays at 9.0 a minute over the hour from 2026-11-30T07:00:00Z (540 replays; "
        "threshold 8 a minute)");
  CHECK(nlohmann::json::parse(drafts[0].evidence_json)["replays"] == 540);

  // 480 in an hour is 8 a minute: at the threshold, not above it.
  e.hourly_replays = {{utc("2026-11-30T07:00:00Z"), 480}};
  CHECK(evaluateGpu(defaultPolicy(), e).empty());
  // More than a day ago: that hour is the daily rule's business now.
  e.hourly_replays = {{utc("2026-11-29T10:00:00Z"), 5000}};
  CHECK(evaluateGpu(defaultPolicy(), e).empty());
}

TEST_CASE("row remap pending: reset at the next idle point", "[unit][health]") {
  auto e = evidenceAt(utc("2026-11-30T00:10:00Z"));
  e.counters = CounterSnapshot{utc("2026-11-30T00:09:30Z"), true, false};
  const auto drafts = evaluateGpu(defaultPolicy(), e);
  REQUIRE(rulesOf(drafts) == std::vector<std::string>{"nvidia.remap_pending"});
  CHECK(drafts[0].action == FlagAction::kResetAtIdle);
  CHECK(drafts[0].severity == FlagSeverity::kWarning);
  CHECK(drafts[0].raised_at == utc("2026-11-30T00:09:30Z"));
  CHECK(drafts[0].reason.find("remap pending") != std::string::npos);
  CHECK(nlohmann::json::parse(drafts[0].evidence_json)["remap_pending"] == true);
}

TEST_CASE("row remap failure: drain and RMA candidate", "[unit][health]") {
  auto e = evidenceAt(utc("2026-11-30T00:10:00Z"));
  e.counters = CounterSnapshot{utc("2026-11-30T00:09:30Z"), false, true};
  const auto drafts = evaluateGpu(defaultPolicy(), e);
  REQUIRE(rulesOf(drafts) == std::vector<std::string>{"nvidia.remap_failure"});
  CHECK(drafts[0].action == FlagAction::kRmaCandidate);
  CHECK(drafts[0].severity == FlagSeverity::kCritical);
}

TEST_CASE("XIDs 64, 79, 95 and 48 drain; older or other XIDs do not", "[unit][health]") {
  const Seconds now = utc("2026-11-30T12:00:00Z");
  for (int xid : {64, 79, 95}) {
    auto e = evidenceAt(now);
    e.xid_bursts = {burst(xid, utc("2026-11-30T08:00:00Z"), 4)};
    const auto drafts = evaluateGpu(defaultPolicy(), e);
    REQUIRE(rulesOf(drafts) == std::vector<std::string>{"nvidia.xid_drain"});
    CHECK(drafts[0].action == FlagAction::kDrain);
    CHECK(drafts[0].raised_at == utc("2026-11-30T08:00:00Z"));
    CHECK(drafts[0].reason.find("XID " + std::to_string(xid)) != std::string::npos);
    CHECK(nlohmann::json::parse(drafts[0].evidence_json)["bursts"][0]["count"] == 4);
  }
  auto dbe = evidenceAt(now);
  dbe.xid_bursts = {burst(48, utc("2026-11-30T11:00:00Z"))};
  CHECK(rulesOf(evaluateGpu(defaultPolicy(), dbe)) == std::vector<std::string>{"nvidia.xid48_dbe"});

  auto old = evidenceAt(now);
  old.xid_bursts = {burst(79, utc("2026-11-29T11:00:00Z"))};  // 25 h ago: outside the window
  CHECK(find(evaluateGpu(defaultPolicy(), old), "nvidia.xid_drain") == nullptr);
  auto other = evidenceAt(now);
  other.xid_bursts = {burst(13, utc("2026-11-30T11:00:00Z"))};
  CHECK(evaluateGpu(defaultPolicy(), other).empty());
}

TEST_CASE("correctable ECC CUSUM: a steady rise flags, noise and one burst do not",
          "[unit][health]") {
  const Rule& r = *findRule(defaultPolicy(), "trend.ecc_cusum");
  SECTION("rising from 1 to 1000 errors a day") {
    auto e = evidenceAt(utc("2026-11-21T00:10:00Z"));
    for (int i = 0; i < 20; ++i) {
      e.days.push_back(dayN(i, i < 10 ? 0 : static_cast<std::int64_t>(std::pow(2.0, i - 10))));
    }
    // log2(1 + 2^n) - 3 accumulates from day 13 (8/day): 0.17, 1.09, 2.04, 3.02, 4.01: 10.3 on
    // day 17
    const auto c = eccCusum(e.days, r.cusum_k, r.cusum_h);
    CHECK(c.value > r.cusum_h);
    REQUIRE(c.excursion);
    CHECK(*c.excursion == kDay0 + days{17});
    const auto drafts = evaluateGpu(defaultPolicy(), e);
    const FlagDraft* d = find(drafts, "trend.ecc_cusum");
    REQUIRE(d);
    CHECK(d->raised_at == endOf(kDay0 + days{17}));
    CHECK(d->action == FlagAction::kRerunBurnIn);
    CHECK(d->reason.find(">= 10.0") != std::string::npos);
    CHECK(nlohmann::json::parse(d->evidence_json)["excursion_from"] == "2026-11-18");
  }
  SECTION("a few errors every day") {
    auto e = evidenceAt(utc("2026-11-30T00:10:00Z"));
    for (int i = 0; i < 29; ++i) e.days.push_back(dayN(i, 5));
    CHECK(eccCusum(e.days, r.cusum_k, r.cusum_h).value == 0);
    CHECK(evaluateGpu(defaultPolicy(), e).empty());
  }
  SECTION("one burst of 1,000 errors") {
    auto e = evidenceAt(utc("2026-11-30T00:10:00Z"));
    for (int i = 0; i < 29; ++i) e.days.push_back(dayN(i, i == 12 ? 1000 : 0));
    CHECK(eccCusum(e.days, r.cusum_k, r.cusum_h).value < r.cusum_h);
    CHECK(evaluateGpu(defaultPolicy(), e).empty());
  }
  SECTION("an excursion that has ended") {
    auto e = evidenceAt(utc("2026-11-30T00:10:00Z"));
    for (int i = 0; i < 29; ++i) e.days.push_back(dayN(i, i >= 5 && i < 9 ? 500 : 0));
    CHECK_FALSE(eccCusum(e.days, r.cusum_k, r.cusum_h).excursion);
  }
}

TEST_CASE("remapped rows growing on two days within 14 flags", "[unit][health]") {
  auto e = evidenceAt(utc("2026-11-30T00:10:00Z"));
  e.remaps = {{utc("2026-11-20T10:00:00Z"), 1}, {utc("2026-11-27T03:00:00Z"), 2}};
  const auto drafts = evaluateGpu(defaultPolicy(), e);
  const FlagDraft* d = find(drafts, "trend.remap_growth");
  REQUIRE(d);
  CHECK(d->raised_at == utc("2026-11-27T03:00:00Z"));
  CHECK(d->reason.find("3 rows on 2 days") != std::string::npos);

  auto same_day = evidenceAt(utc("2026-11-30T00:10:00Z"));
  same_day.remaps = {{utc("2026-11-27T01:00:00Z"), 1}, {utc("2026-11-27T03:00:00Z"), 2}};
  CHECK(find(evaluateGpu(defaultPolicy(), same_day), "trend.remap_growth") == nullptr);
  auto far_apart = evidenceAt(utc("2026-11-30T00:10:00Z"));
  far_apart.remaps = {{utc("2026-11-05T01:00:00Z"), 1}, {utc("2026-11-27T03:00:00Z"), 2}};
  CHECK(find(evaluateGpu(defaultPolicy(), far_apart), "trend.remap_growth") == nullptr);
}

TEST_CASE("repeat offender: three bad days in 30; application XIDs do not count",
          "[unit][health]") {
  auto e = evidenceAt(utc("2026-11-30T00:10:00Z"));
  e.xid_bursts = {burst(74, utc("2026-11-05T10:00:00Z")), burst(74, utc("2026-11-05T18:00:00Z")),
                  burst(119, utc("2026-11-12T10:00:00Z"))};
  e.past_flags = {{"peer.temperature", utc("2026-11-20T00:00:00Z")}};
  auto drafts = evaluateGpu(defaultPolicy(), e);
  const FlagDraft* d = find(drafts, "repeat.offender");
  REQUIRE(d);
  CHECK(d->reason.find("3 bad days") != std::string::npos);
  CHECK(d->raised_at == utc("2026-11-21T00:00:00Z"));  // the end of the third bad day
  CHECK(nlohmann::json::parse(d->evidence_json)["bad_days"].size() == 3);

  // The same with the flag replaced by application errors, or the first day out of the window.
  auto apps = e;
  apps.past_flags.clear();
  apps.xid_bursts.push_back(burst(13, utc("2026-11-22T10:00:00Z")));
  apps.xid_bursts.push_back(burst(43, utc("2026-11-23T10:00:00Z")));
  CHECK(find(evaluateGpu(defaultPolicy(), apps), "repeat.offender") == nullptr);
  auto later = e;
  later.now = utc("2026-12-06T12:00:00Z");
  CHECK(find(evaluateGpu(defaultPolicy(), later), "repeat.offender") == nullptr);

  // A flag raised in this evaluation counts.
  auto now_flag = apps;
  now_flag.counters = CounterSnapshot{utc("2026-11-30T00:09:00Z"), true, false};
  CHECK(find(evaluateGpu(defaultPolicy(), now_flag), "repeat.offender") != nullptr);
}

TEST_CASE("peer comparison: an outlier three days running is flagged, others are not",
          "[unit][health]") {
  SECTION("a healthy rack") {
    CHECK(evaluatePeerGroup(defaultPolicy(), rack(5)).empty());
  }
  SECTION("one GPU 9 C hotter than its peers for 3 days") {
    auto g = rack(5, [](int d, PeerReading& r) {
      if (r.serial == "GPU-3" && d >= 2) r.temperature_c = *r.temperature_c + 9;
    });
    const auto drafts = evaluatePeerGroup(defaultPolicy(), g);
    REQUIRE(rulesOf(drafts) == std::vector<std::string>{"peer.temperature"});
    CHECK(drafts[0].serial == "GPU-3");
    CHECK(drafts[0].raised_at == endOf(kDay0 + days{4}));
    CHECK(drafts[0].reason.find("above peer median") != std::string::npos);
    const auto ev = nlohmann::json::parse(drafts[0].evidence_json);
    CHECK(ev["peers"] == 16);
    CHECK(ev["z"].get<double>() >= 3.5);
  }
  SECTION("hot for 2 days only") {
    auto g = rack(5, [](int d, PeerReading& r) {
      if (r.serial == "GPU-3" && d >= 3) r.temperature_c = *r.temperature_c + 9;
    });
    CHECK(evaluatePeerGroup(defaultPolicy(), g).empty());
  }
  SECTION("an outlier by z but within the absolute floor") {
    auto g = rack(5, [](int, PeerReading& r) {
      r.temperature_c = 60.0;
      if (r.serial == "GPU-3") r.temperature_c = 63.0;  // MAD 0: z huge, but only 3 C
    });
    CHECK(evaluatePeerGroup(defaultPolicy(), g).empty());
  }
  SECTION("a GPU slowing down: SM clock 8% below its peers") {
    auto g = rack(4, [](int, PeerReading& r) {
      if (r.serial == "GPU-7") r.sm_clock_mhz = *r.sm_clock_mhz * 0.92;
    });
    const auto drafts = evaluatePeerGroup(defaultPolicy(), g);
    REQUIRE(rulesOf(drafts) == std::vector<std::string>{"peer.sm_clock"});
    CHECK(drafts[0].serial == "GPU-7");
    CHECK(drafts[0].reason.find("below peer median") != std::string::npos);
  }
  SECTION("a faster clock or a lower power is not flagged, a higher power is") {
    auto g = rack(4, [](int, PeerReading& r) {
      if (r.serial == "GPU-7") r.sm_clock_mhz = *r.sm_clock_mhz * 1.08;
      if (r.serial == "GPU-8") r.power_w = *r.power_w * 0.8;
      if (r.serial == "GPU-9") r.power_w = *r.power_w * 1.2;
    });
    const auto drafts = evaluatePeerGroup(defaultPolicy(), g);
    REQUIRE(rulesOf(drafts) == std::vector<std::string>{"peer.power"});
    CHECK(drafts[0].serial == "GPU-9");
  }
  SECTION("an idle node is compared with nobody (similar load)") {
    auto g = rack(4, [](int, PeerReading& r) {
      const int i = std::stoi(r.serial.substr(4));
      if (i < 4) {  // idle: cool, idle clocks, low power
        r.temperature_c = 35.0;
        r.sm_clock_mhz = 345.0;
        r.power_w = 90.0;
      }
    });
    CHECK(evaluatePeerGroup(defaultPolicy(), g).empty());
    // Without the load filter the idle GPUs would be flagged for their clocks.
    Policy no_filter = defaultPolicy();
    for (auto& r : no_filter) r.min_load_fraction = 0;
    CHECK_FALSE(evaluatePeerGroup(no_filter, g).empty());
  }
  SECTION("too few peers, too few samples, or a gap in the days") {
    auto small = rack(4, [](int, PeerReading& r) {
      if (r.serial == "GPU-3") r.temperature_c = *r.temperature_c + 20;
    });
    for (auto& d : small.days) d.gpus.resize(7);
    CHECK(evaluatePeerGroup(defaultPolicy(), small).empty());
    auto sparse = rack(4, [](int, PeerReading& r) {
      if (r.serial == "GPU-3") {
        r.temperature_c = *r.temperature_c + 20;
        r.samples = 100;
      }
    });
    CHECK(evaluatePeerGroup(defaultPolicy(), sparse).empty());
    auto gap = rack(4, [](int, PeerReading& r) {
      if (r.serial == "GPU-3") r.temperature_c = *r.temperature_c + 20;
    });
    gap.days.erase(gap.days.begin() + 2);
    CHECK(evaluatePeerGroup(defaultPolicy(), gap).empty());
  }
}

TEST_CASE(
    "recurring hardware XIDs: two days within a week; application and drain XIDs do not count",
    "[unit][health]") {
  auto e = evidenceAt(utc("2026-11-30T00:10:00Z"));
  e.xid_bursts = {burst(74, utc("2026-11-25T10:00:00Z")), burst(119, utc("2026-11-28T10:00:00Z"))};
  const auto drafts = evaluateGpu(defaultPolicy(), e);
  const FlagDraft* d = find(drafts, "xid.recurring");
  REQUIRE(d);
  CHECK(d->action == FlagAction::kRerunBurnIn);
  CHECK(d->raised_at == utc("2026-11-29T00:00:00Z"));
  CHECK(d->reason.find("hardware XIDs 74/119 on 2 days") != std::string::npos);

  auto apart = evidenceAt(utc("2026-11-30T00:10:00Z"));
  apart.xid_bursts = {burst(74, utc("2026-11-15T10:00:00Z")),
                      burst(119, utc("2026-11-28T10:00:00Z"))};
  CHECK(find(evaluateGpu(defaultPolicy(), apart), "xid.recurring") == nullptr);
  auto apps = evidenceAt(utc("2026-11-30T00:10:00Z"));
  apps.xid_bursts = {burst(13, utc("2026-11-27T10:00:00Z")), burst(43, utc("2026-11-28T10:00:00Z")),
                     burst(79, utc("2026-11-26T10:00:00Z"))};
  CHECK(find(evaluateGpu(defaultPolicy(), apps), "xid.recurring") == nullptr);
}

TEST_CASE("Theil-Sen slope: the median pairwise slope, robust to an outlier", "[unit][health]") {
  CHECK(theilSenSlope({{0, 0}, {1, 2}, {2, 4}, {3, 6}, {4, 100}}, 0.5) == Approx(2));
  CHECK(theilSenSlope({{1, 0}, {1, 5}}, 0.5) == 0);
}

TEST_CASE("drift against peers: a GPU getting hotter or slower is flagged, one always hot is not",
          "[unit][health]") {
  SECTION("always 6 C hotter than its peers: no drift") {
    auto g = rack(20, [](int, PeerReading& r) {
      if (r.serial == "GPU-3") r.temperature_c = *r.temperature_c + 6;
    });
    const auto drafts = evaluatePeerGroup(defaultPolicy(), g);
    CHECK(find(drafts, "trend.temperature_drift") == nullptr);
  }
  SECTION("4 C hotter than its usual for the last 3 days") {
    auto g = rack(20, [](int d, PeerReading& r) {
      if (r.serial == "GPU-3" && d >= 17) r.temperature_c = *r.temperature_c + 4;
    });
    const auto drafts = evaluatePeerGroup(defaultPolicy(), g);
    const FlagDraft* d = find(drafts, "trend.temperature_drift");
    REQUIRE(d);
    CHECK(d->serial == "GPU-3");
    CHECK(d->reason.find("drifting above its peers") != std::string::npos);
    CHECK(nlohmann::json::parse(d->evidence_json)["load_adjusted"] == true);
  }
  SECTION("the whole rack hotter (a warm day): nobody drifts") {
    auto g = rack(20, [](int d, PeerReading& r) {
      if (d >= 17) r.temperature_c = *r.temperature_c + 6;
    });
    CHECK(evaluatePeerGroup(defaultPolicy(), g).empty());
  }
  SECTION("hotter because busier: the load adjustment absorbs it") {
    // Power and temperature vary together across the rack (0.1 C per W); GPU-3 runs 60 W
    // busier than before for the last 3 days, and 6 C hotter with it.
    auto g = rack(20, [](int d, PeerReading& r) {
      const int i = std::stoi(r.serial.substr(4));
      r.power_w = 450.0 + 10 * i;
      r.temperature_c = 40 + 0.1 * *r.power_w;
      if (i == 3 && d >= 17) {
        r.power_w = *r.power_w + 60;
        r.temperature_c = *r.temperature_c + 6;
      }
    });
    CHECK(find(evaluatePeerGroup(defaultPolicy(), g), "trend.temperature_drift") == nullptr);
  }
  SECTION("SM clock 2% below its usual for 3 days") {
    auto g = rack(20, [](int d, PeerReading& r) {
      if (r.serial == "GPU-5" && d >= 17) r.sm_clock_mhz = *r.sm_clock_mhz * 0.98;
    });
    const auto drafts = evaluatePeerGroup(defaultPolicy(), g);
    const FlagDraft* d = find(drafts, "trend.sm_clock_drift");
    REQUIRE(d);
    CHECK(d->serial == "GPU-5");
  }
  SECTION("too short a baseline") {
    auto g = rack(9, [](int d, PeerReading& r) {
      if (r.serial == "GPU-3" && d >= 6) r.temperature_c = *r.temperature_c + 8;
    });
    CHECK(find(evaluatePeerGroup(defaultPolicy(), g), "trend.temperature_drift") == nullptr);
  }
}

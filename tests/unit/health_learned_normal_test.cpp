// The learned-normal detector (inventory/health/learned_normal.hpp) on known nodes: a GPU that
// drifts from what is normal for it against its node-mates is flagged before any one day looks
// abnormal; a GPU that always ran hot, a node that runs hot as a whole, idle days and one-off
// bursts are not news.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>

#include "inventory/health/learned_normal.hpp"

using namespace inventory::health;
using namespace std::chrono;

namespace {

const Days kDay0 = sys_days{year{2026} / 11 / 1};

// Deterministic noise in [-1, 1] for GPU i on day d.
double noise(int i, int d) {
  std::uint64_t x = static_cast<std::uint64_t>(i) * 0x9E3779B97F4A7C15ull +
                    static_cast<std::uint64_t>(d) * 0xBF58476D1CE4E5B9ull + 12345;
  x ^= x >> 31;
  x *= 0x94D049BB133111EBull;
  x ^= x >> 29;
  return static_cast<double>(x % 20001) / 10000.0 - 1.0;
}

Stat stat(double v) {
  Stat s;
  s.count = 2880;
  s.sum = v * 2880;
  s.min = v - 1;
  s.max = v + 1;
  return s;
}

struct Reading {
  double temp = 0, clock = 0, power = 0, hbm = 0, mem_clock = 0;
  std::int64_t ecc = 0;
  std::int64_t replays = 0;
};

// 8 GPUs over `n` days: each with its own offset, the node's load moving them all together,
// a few idle days, day-to-day noise (0.6 C, 0.2%); `tweak(gpu, day, reading)` changes one.
struct Node {
  NodeHistory history;
  std::vector<std::vector<DayAggregate>> days;

  Node(
      int n, const std::function<void(int, int, Reading&)>& tweak = {}, int gpus = 8,
      const std::function<bool(int)>& idle_day = [](int d) { return d % 9 == 4; }) {
    days.resize(static_cast<std::size_t>(gpus));
    for (int i = 0; i < gpus; ++i) {
      for (int d = 0; d < n; ++d) {
        const bool idle = idle_day(d);
        const double load = idle ? 0.1 : 0.85 + 0.1 * noise(100, d);
        Reading r;
        r.temp = 25 + 40 * load + (i % 4) * 1.5 + 0.6 * noise(i, d);
        r.clock = idle ? 400 + 30 * noise(i, d) : 1755 * (1 + 0.002 * noise(i + 50, d));
        r.power = 700 * (0.15 + 0.85 * load) * (1 + 0.01 * noise(i + 70, d));
        r.hbm = r.temp + 8 + 0.5 * noise(i + 90, d);
        r.mem_clock = idle ? 1593 : 2619 * (1 + 0.001 * noise(i + 110, d));
        if (tweak) tweak(i, d, r);
        DayAggregate a;
        a.day = kDay0 + std::chrono::days{d};
        a.samples = 2880;
        a.temperature_c = stat(r.temp);
        a.sm_clock_mhz = stat(r.clock);
        a.power_w = stat(r.power);
        a.ecc_corrected = r.ecc;
        a.pcie_replays = r.replays;
        a.hbm_temperature_c = stat(r.hbm);
        a.mem_clock_mhz = stat(r.mem_clock);
        days[static_cast<std::size_t>(i)].push_back(a);
      }
    }
    history.label = "node 7";
    for (int i = 0; i < gpus; ++i) {
      history.gpus.push_back({"GPU-" + std::to_string(i), days[static_cast<std::size_t>(i)]});
    }
  }
};

std::vector<FlagDraft> evaluate(const Node& node) {
  return evaluateLearnedNormal(defaultPolicy(), node.history);
}

std::vector<std::pair<Days, double>> series(const std::vector<double>& values) {
  std::vector<std::pair<Days, double>> out;
  for (std::size_t i = 0; i < values.size(); ++i) {
    out.emplace_back(kDay0 + std::chrono::days{static_cast<int>(i)}, values[i]);
  }
  return out;
}

}  // namespace

TEST_CASE("learned normal: the policy's rules", "[unit][health]") {
  for (const char* id : {"learned.temperature", "learned.sm_clock", "learned.hbm_temperature",
                         "learned.mem_clock", "learned.ecc_rate", "learned.pcie_replays"}) {
    const Rule* r = findRule(defaultPolicy(), id);
    REQUIRE(r);
    CHECK(r->kind == RuleKind::kLearnedNormal);
    CHECK_FALSE(r->source.empty());
    CHECK(r->cusum_h > 0);
    CHECK(r->day_cap > 0);
  }
}

TEST_CASE("learned normal: a healthy node raises nothing, though one GPU always runs 6 C hotter",
          "[unit][health]") {
  const Node node(30, [](int gpu, int, Reading& r) {
    if (gpu == 5) r.temp += 6;
  });
  CHECK(evaluate(node).empty());
}

TEST_CASE("learned normal: a GPU creeping hotter than its node-mates is flagged early",
          "[unit][health]") {
  // From day 12, GPU 3 gains 0.4 C a day: 2 C after 5 days, never 5 C above its usual (the
  // static peer rule's floor) before it is flagged.
  const Node node(24, [](int gpu, int d, Reading& r) {
    if (gpu == 3 && d >= 12) r.temp += 0.4 * (d - 11);
  });
  const auto drafts = evaluate(node);
  REQUIRE(drafts.size() == 1);
  const FlagDraft& f = drafts[0];
  CHECK(f.serial == "GPU-3");
  CHECK(f.rule == "learned.temperature");
  CHECK(f.action == FlagAction::kRerunBurnIn);
  CHECK(f.reason.find("above its learned normal against its node-mates") != std::string::npos);
  CHECK(f.reason.find("node 7") != std::string::npos);
  const auto evidence = nlohmann::json::parse(f.evidence_json);
  CHECK(evidence["metric"] == "temperature_c");
  CHECK(evidence["normal_days"].get<int>() >= 7);
  // Flagged within a week of the onset, while the creep was still under 3 C.
  CHECK(f.raised_at <= endOf(kDay0 + std::chrono::days{18}));
  CHECK(f.raised_at >= endOf(kDay0 + std::chrono::days{12}));
}

TEST_CASE("learned normal: an HBM warming against its node-mates' HBM", "[unit][health]") {
  // GPU 4's HBM gains 0.5 C a day from day 12 while its GPU temperature does not move.
  const Node node(24, [](int gpu, int d, Reading& r) {
    if (gpu == 4 && d >= 12) r.hbm += 0.5 * (d - 11);
  });
  const auto drafts = evaluate(node);
  REQUIRE(drafts.size() == 1);
  CHECK(drafts[0].serial == "GPU-4");
  CHECK(drafts[0].rule == "learned.hbm_temperature");
  CHECK(nlohmann::json::parse(drafts[0].evidence_json)["metric"] == "hbm_temperature_c");
}

TEST_CASE("learned normal: a node getting hotter as a whole is not a GPU's fault",
          "[unit][health]") {
  const Node node(24, [](int, int d, Reading& r) {
    if (d >= 12) r.temp += 0.6 * (d - 11);
  });
  CHECK(evaluate(node).empty());
}

TEST_CASE("learned normal: a clock falling behind its node-mates", "[unit][health]") {
  const Node node(24, [](int gpu, int d, Reading& r) {
    if (gpu == 6 && d >= 12 && r.clock > 1000) r.clock *= 1 - 0.002 * (d - 11);
  });
  const auto drafts = evaluate(node);
  REQUIRE(drafts.size() == 1);
  CHECK(drafts[0].serial == "GPU-6");
  CHECK(drafts[0].rule == "learned.sm_clock");
  CHECK(drafts[0].reason.find("below its learned normal") != std::string::npos);
}

TEST_CASE("learned normal: an HBM clock sagging against its node-mates' (memory throttling)",
          "[unit][health]") {
  // GPU 2's memory clock averages 0.3% lower each day from day 12 (more of each day throttled);
  // its SM clock and temperatures do not move.
  const Node node(24, [](int gpu, int d, Reading& r) {
    if (gpu == 2 && d >= 12 && r.mem_clock > 2000) r.mem_clock *= 1 - 0.003 * (d - 11);
  });
  const auto drafts = evaluate(node);
  REQUIRE(drafts.size() == 1);
  CHECK(drafts[0].serial == "GPU-2");
  CHECK(drafts[0].rule == "learned.mem_clock");
  CHECK(nlohmann::json::parse(drafts[0].evidence_json)["metric"] == "mem_clock_mhz");
  CHECK(drafts[0].raised_at <= endOf(kDay0 + std::chrono::days{18}));
}

TEST_CASE("learned normal: a GPU degrading from its first day is seen by its trend",
          "[unit][health]") {
  // No normal can be learned (it was never normal); its rise against its mates is the signal.
  const Node node(9, [](int gpu, int d, Reading& r) {
    if (gpu == 2) r.temp += 0.8 * d;
  });
  const auto drafts = evaluate(node);
  REQUIRE(drafts.size() == 1);
  CHECK(drafts[0].serial == "GPU-2");
  CHECK(drafts[0].rule == "learned.temperature");
  CHECK(drafts[0].reason.find("rising against its node-mates") != std::string::npos);
  CHECK(nlohmann::json::parse(drafts[0].evidence_json)["trend_z"].get<double>() >= 4.5);
}

TEST_CASE("learned normal: idle days are left out", "[unit][health]") {
  // The node idles for 4 days, during which GPU 1 runs 8 C hotter than its mates (a fan curve
  // at idle) and at a lower clock: not compared, no flag.
  auto idle = [](int d) { return d >= 20 && d < 24; };
  const Node node(
      30,
      [&](int gpu, int d, Reading& r) {
        if (gpu == 1 && idle(d)) {
          r.temp += 8;
          r.clock -= 100;
        }
      },
      8, idle);
  CHECK(evaluate(node).empty());
}

TEST_CASE("learned normal: too few node-mates, no judgement", "[unit][health]") {
  // 4 GPUs: 3 mates each, the policy needs 4.
  const Node node(
      24,
      [](int gpu, int d, Reading& r) {
        if (gpu == 3 && d >= 12) r.temp += 0.8 * (d - 11);
      },
      4);
  CHECK(evaluate(node).empty());
}

TEST_CASE("learned normal: correctable ECC against the GPU's own rate", "[unit][health]") {
  SECTION("a GPU that always logs ~2 a day is not news") {
    const Node node(30, [](int gpu, int d, Reading& r) {
      if (gpu == 4) r.ecc = 1 + (d % 3);
    });
    CHECK(evaluate(node).empty());
  }
  SECTION("one burst of 5,000 is one bad day, not a rate") {
    const Node node(30, [](int gpu, int d, Reading& r) {
      if (gpu == 4 && d == 20) r.ecc = 5000;
    });
    CHECK(evaluate(node).empty());
  }
  SECTION("a quiet GPU going to 3, 6, 12 a day is flagged") {
    const Node node(24, [](int gpu, int d, Reading& r) {
      if (gpu == 4 && d >= 20) r.ecc = 3 << (d - 20);
    });
    const auto drafts = evaluate(node);
    REQUIRE(drafts.size() == 1);
    CHECK(drafts[0].rule == "learned.ecc_rate");
    CHECK(drafts[0].serial == "GPU-4");
    CHECK(drafts[0].reason.find("above the GPU's learned rate") != std::string::npos);
    CHECK(drafts[0].raised_at <= endOf(kDay0 + std::chrono::days{22}));
  }
}

TEST_CASE("learned normal: PCIe replays against the link's own rate", "[unit][health]") {
  SECTION("a link that always replays a few times a day is not news") {
    const Node node(30, [](int gpu, int d, Reading& r) {
      if (gpu == 2) r.replays = 2 + (d % 4);
    });
    CHECK(evaluate(node).empty());
  }
  SECTION("a quiet link starting to replay hundreds of times a day is flagged") {
    const Node node(24, [](int gpu, int d, Reading& r) {
      if (gpu == 2 && d >= 20) r.replays = 150 * (d - 19);
    });
    const auto drafts = evaluate(node);
    REQUIRE(drafts.size() == 1);
    CHECK(drafts[0].rule == "learned.pcie_replays");
    CHECK(drafts[0].serial == "GPU-2");
    CHECK(drafts[0].reason.find("PCIe replays above the GPU's learned rate") != std::string::npos);
    CHECK(nlohmann::json::parse(drafts[0].evidence_json)["metric"] == "pcie_replays");
  }
}

TEST_CASE("learned normal: the CUSUM's pieces", "[unit][health]") {
  SECTION("a step after the learning days accumulates; a false start rejoins the normal") {
    std::vector<double> v(10, 0.0);
    v.insert(v.end(), {3, 3, 3});
    const auto c = residualCusum(series(v), +1, 1.0, 7, 21, 1.5, 4, 5);
    // Days 7-9 were judged normal and joined the 7 learned; each step day adds
    // 3 / (1 x sqrt(1 + 1.05 / 10)) - 1.5 = 1.35, so S passes 4 on the third.
    REQUIRE(c.excursion);
    CHECK(*c.excursion == kDay0 + std::chrono::days{12});
    CHECK(c.normal_days == 10);
    CHECK(c.value == Approx(3 * (3 / std::sqrt(1 + 1.05 / 10) - 1.5)));
  }
  SECTION("one extreme day is capped: it cannot reach h alone") {
    std::vector<double> v(10, 0.0);
    v.push_back(1000);
    const auto c = residualCusum(series(v), +1, 1.0, 7, 21, 1.5, 6, 5);
    CHECK_FALSE(c.excursion);
    CHECK(c.value <= 5 - 1.5);
  }
  SECTION("the other direction is not flagged") {
    std::vector<double> v(10, 0.0);
    v.insert(v.end(), {-5, -5, -5});
    CHECK_FALSE(residualCusum(series(v), +1, 1.0, 7, 21, 1.5, 4, 5).excursion);
    CHECK(residualCusum(series(v), -1, 1.0, 7, 21, 1.5, 4, 5).excursion);
  }
  SECTION("the rate: one burst is capped; the rate is learned plus two standard errors") {
    const auto c = rateCusum(series({0, 0, 0, 0, 0, 0, 0, 40, 0, 0}), 0.2, 4, 2, 3, 21, 8, 4);
    CHECK_FALSE(c.excursion);
    CHECK(c.scores.at(4).second == 4);  // the burst's day, capped
    const auto steady = rateCusum(series(std::vector<double>(11, 2.0)), 0.2, 4, 2, 3, 21, 8, 4);
    CHECK_FALSE(steady.excursion);
    CHECK(steady.normal_days == 10);
    CHECK(steady.normal == Approx(2 + 2 * std::sqrt(2.0 / 9)));  // the worst day left out
  }
  SECTION("a trend needs its days") {
    CHECK_FALSE(residualTrend(series({0, 1, 2}), +1, 0.5, 8));
    const auto t = residualTrend(series({0, 1, 2, 3, 4, 5, 6, 7}), +1, 2, 8);
    REQUIRE(t);
    CHECK(t->slope == Approx(1));
    CHECK(t->z == Approx(std::sqrt(42.0) / 2));  // sum (x - mean x)^2 = 42 over 8 days
    CHECK(residualTrend(series({0, 1, 2, 3, 4, 5, 6, 7}), -1, 2, 8)->z < 0);
  }
}

// Wave arithmetic, spreading over racks and failure domains, admission under caps, and the
// makespan lower bound.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <random>
#include <set>

#include "workflows/campaign/waves.hpp"

using namespace workflows::campaign;

namespace {

// `racks` racks of `per_rack` nodes, ids from 1 in rack order; two PDUs per rack, and an NVLink
// domain per pair of racks.
std::vector<PlanNode> fleet(int racks, int per_rack) {
  std::vector<PlanNode> nodes;
  std::int64_t id = 1;
  for (int r = 0; r < racks; ++r) {
    for (int n = 0; n < per_rack; ++n) {
      PlanNode p;
      p.id = id++;
      p.site = "sjc1";
      p.rack = "r" + std::to_string(100 + r);
      p.model = "DGXH100";
      p.labels = {{"pdu", p.rack + "-pdu" + std::to_string(n % 2)},
                  {"nvlink_domain", "nvl" + std::to_string(r / 2)}};
      nodes.push_back(p);
    }
  }
  return nodes;
}

CampaignSpec spec(int canary, std::vector<WaveSize> waves) {
  CampaignSpec s;
  s.canary.count = canary;
  s.waves = std::move(waves);
  return s;
}

const WaveSize kRest{0, true};
WaveSize pct(double p) {
  return WaveSize{p, false};
}

std::vector<std::size_t> sizes(const std::vector<Wave>& plan) {
  std::vector<std::size_t> out;
  for (const auto& w : plan) out.push_back(w.nodes.size());
  return out;
}

std::vector<std::int64_t> ids(const std::vector<Wave>& plan) {
  std::vector<std::int64_t> out;
  for (const auto& w : plan) {
    for (const auto& n : w.nodes) out.push_back(n.node.id);
  }
  return out;
}

using Sizes = std::vector<std::size_t>;

}  // namespace

TEST_CASE("waves of 1,250 nodes: canary, percentages of the rest rounded up, rest", "[campaign]") {
  auto plan = planWaves(spec(2, {pct(1), pct(10), pct(50), kRest}), fleet(125, 10));
  // 1,248 after the canary: ceil(12.48) = 13, ceil(124.8) = 125, 624, and 486 left.
  CHECK(sizes(plan) == Sizes{2, 13, 125, 624, 486});
  std::set<std::int64_t> seen;
  int position = 0;
  for (std::size_t w = 0; w < plan.size(); ++w) {
    CHECK(plan[w].index == static_cast<int>(w));
    for (const auto& n : plan[w].nodes) {
      CHECK(n.wave == static_cast<int>(w));
      CHECK(n.position == position++);
      CHECK(seen.insert(n.node.id).second);
    }
  }
  CHECK(seen.size() == 1250);
  CampaignSpec percent = spec(0, {pct(25), kRest});
  percent.canary.percent = 10;
  CHECK(sizes(planWaves(percent, fleet(125, 10))) == Sizes{125, 282, 843});
}

TEST_CASE("waves of 7 nodes and of 1 node are never empty", "[campaign]") {
  // 7: canary 1, then 6: ceil(0.06) = 1, ceil(0.6) = 1, ceil(3) = 3, rest 1.
  CHECK(sizes(planWaves(spec(1, {pct(1), pct(10), pct(50), kRest}), fleet(1, 7))) ==
        Sizes{1, 1, 1, 3, 1});
  CHECK(sizes(planWaves(spec(2, {pct(1), kRest}), fleet(1, 7))) == Sizes{2, 1, 4});
  // 1: the canary is everything; the waves have nothing left and are not planned.
  CHECK(sizes(planWaves(spec(1, {pct(50), kRest}), fleet(1, 1))) == Sizes{1});
  CHECK(sizes(planWaves(spec(2, {pct(50), kRest}), fleet(1, 1))) == Sizes{1});
  // A canary larger than the selection takes all of it.
  CHECK(sizes(planWaves(spec(10, {kRest}), fleet(1, 3))) == Sizes{3});
  // A percentage canary of a small selection is at least one node.
  CampaignSpec percent = spec(0, {kRest});
  percent.canary.percent = 1;
  CHECK(sizes(planWaves(percent, fleet(1, 7))) == Sizes{1, 6});
  // Nothing selected: no waves.
  CHECK(planWaves(spec(1, {kRest}), {}).empty());
}

TEST_CASE("the last wave takes the rest; percentages are exact when they divide", "[campaign]") {
  // 101 nodes, canary 1: 10% of 100 is 10 exactly, and the last (non-rest) wave takes 90.
  CHECK(sizes(planWaves(spec(1, {pct(10), pct(20)}), fleet(1, 101))) == Sizes{1, 10, 90});
  // Percentages over 100 in total: the last takes what is left.
  CHECK(sizes(planWaves(spec(1, {pct(60), pct(60)}), fleet(1, 11))) == Sizes{1, 6, 4});
  // 100% at once.
  CHECK(sizes(planWaves(spec(1, {pct(100)}), fleet(1, 11))) == Sizes{1, 10});
  // Waves that use up the nodes early leave none empty behind.
  CHECK(sizes(planWaves(spec(1, {pct(100), pct(10), kRest}), fleet(1, 11))) == Sizes{1, 10});
}

TEST_CASE("the plan is deterministic whatever the input order", "[campaign]") {
  auto nodes = fleet(13, 7);
  const auto reference = ids(planWaves(spec(3, {pct(10), pct(50), kRest}), nodes));
  std::mt19937 random(42);
  for (int i = 0; i < 5; ++i) {
    std::shuffle(nodes.begin(), nodes.end(), random);
    CHECK(ids(planWaves(spec(3, {pct(10), pct(50), kRest}), nodes)) == reference);
  }
}

TEST_CASE("the plan spreads consecutive nodes across racks", "[campaign]") {
  auto plan = planWaves(spec(4, {pct(25), kRest}), fleet(4, 3));
  std::set<std::string> canary_racks;
  for (const auto& n : plan[0].nodes) canary_racks.insert(n.node.rack);
  CHECK(canary_racks.size() == 4);
  // In every prefix of a plan over equal racks, no rack has more than its share rounded up.
  auto big = planWaves(spec(1, {pct(1), pct(10), kRest}), fleet(125, 10));
  std::map<std::string, int> in_prefix;
  int k = 0;
  for (const auto& w : big) {
    for (const auto& n : w.nodes) {
      ++k;
      ++in_prefix[n.node.rack];
      CHECK(in_prefix[n.node.rack] <= (k + 124) / 125);
    }
  }
  // Round-robin over racks in name order, ids in order within a rack.
  auto small = planWaves(spec(1, {kRest}), fleet(3, 2));
  CHECK(ids(small) == std::vector<std::int64_t>{1, 3, 5, 2, 4, 6});
}

TEST_CASE("within a rack the plan alternates the capped failure domains", "[campaign]") {
  // One rack, ids 1-4 on pdu a, a, b, b.
  std::vector<PlanNode> nodes;
  for (std::int64_t id = 1; id <= 4; ++id) {
    nodes.push_back(PlanNode{id, "sjc1", "r1", "DGXH100", {{"pdu", id <= 2 ? "a" : "b"}}});
  }
  CampaignSpec s = spec(1, {kRest});
  CHECK(ids(planWaves(s, nodes)) == std::vector<std::int64_t>{1, 2, 3, 4});  // pdu not capped
  s.caps.per_label = {{"pdu", 1}};
  CHECK(ids(planWaves(s, nodes)) == std::vector<std::int64_t>{1, 3, 2, 4});
}

TEST_CASE("admission names the cap that blocks", "[campaign]") {
  Caps caps;
  caps.global = 7;
  caps.per_rack = 2;
  caps.per_label = {{"pdu", 1}};
  const PlanNode node{5, "sjc1", "r01", "DGXH100", {{"pdu", "p3"}}};
  CHECK(admit(caps, InFlight{}, node).admitted);
  CHECK(admit(caps, InFlight{}, node).blocked_by.empty());
  CHECK(admit(caps, InFlight{7, {}, {}}, node).blocked_by == "global");
  InFlight rack_full;
  rack_full.global = 2;
  rack_full.per_rack["r01"] = 2;
  CHECK(admit(caps, rack_full, node).blocked_by == "per_rack:r01");
  InFlight pdu_busy;
  pdu_busy.global = 1;
  pdu_busy.per_label["pdu"]["p3"] = 1;
  CHECK(admit(caps, pdu_busy, node).blocked_by == "label:pdu=p3");
  // Other racks and other PDUs do not block; a node without the label is in no such domain.
  rack_full.per_rack = {{"r02", 2}};
  pdu_busy.per_label["pdu"] = {{"p4", 1}};
  CHECK(admit(caps, rack_full, node).admitted);
  CHECK(admit(caps, pdu_busy, node).admitted);
  pdu_busy.per_label["pdu"]["p3"] = 1;
  CHECK(admit(caps, pdu_busy, PlanNode{6, "sjc1", "r01", "DGXH100", {}}).admitted);
  // Caps of 0 are unlimited.
  CHECK(admit(Caps{}, InFlight{1000, {{"r01", 1000}}, {}}, node).admitted);
}

TEST_CASE("pickAdmissible admits greedily and skips a blocked node for a later one", "[campaign]") {
  Caps caps;
  caps.global = 3;
  caps.per_rack = 1;
  std::vector<PlanNode> candidates = {{1, "s", "r1", "m", {}},
                                      {2, "s", "r1", "m", {}},
                                      {3, "s", "r2", "m", {}},
                                      {4, "s", "r3", "m", {}},
                                      {5, "s", "r4", "m", {}}};
  CHECK(pickAdmissible(caps, InFlight{}, candidates) == std::vector<std::int64_t>{1, 3, 4});
  InFlight busy;
  busy.global = 1;
  busy.per_rack["r2"] = 1;
  CHECK(pickAdmissible(caps, busy, candidates) == std::vector<std::int64_t>{1, 4});
  CHECK(busy.global == 1);  // the caller's counts are not changed
  CHECK(pickAdmissible(caps, InFlight{3, {}, {}}, candidates).empty());
}

TEST_CASE("caps are never exceeded when pickAdmissible is called over and over", "[campaign]") {
  Caps caps;
  caps.global = 9;
  caps.per_rack = 2;
  caps.per_label = {{"pdu", 1}, {"nvlink_domain", 3}};
  auto plan = planWaves(spec(2, {pct(10), pct(50), kRest}), fleet(12, 8));
  std::mt19937 random(7);
  for (const auto& wave : plan) {
    std::vector<PlanNode> pending;
    for (const auto& p : wave.nodes) pending.push_back(p.node);
    std::vector<PlanNode> running;
    InFlight f;
    int rounds = 0;
    while (!pending.empty() || !running.empty()) {
      REQUIRE(++rounds < 10000);
      auto picked = pickAdmissible(caps, f, pending);
      if (running.empty()) REQUIRE_FALSE(picked.empty());  // nothing running: progress
      for (auto id : picked) {
        auto it = std::find_if(pending.begin(), pending.end(),
                               [id](const PlanNode& p) { return p.id == id; });
        REQUIRE(it != pending.end());
        addInFlight(f, *it);
        running.push_back(*it);
        pending.erase(it);
      }
      // Recount from the running nodes themselves, not from the counts the picker used.
      std::map<std::string, int> racks, pdus, domains;
      for (const auto& n : running) {
        ++racks[n.rack];
        ++pdus[n.labels.at("pdu")];
        ++domains[n.labels.at("nvlink_domain")];
      }
      CHECK(static_cast<int>(running.size()) <= caps.global);
      for (const auto& [rack, n] : racks) CHECK(n <= 2);
      for (const auto& [pdu, n] : pdus) CHECK(n <= 1);
      for (const auto& [domain, n] : domains) CHECK(n <= 3);
      // Greedy is maximal: every node left waiting is blocked by some cap.
      for (const auto& p : pending) CHECK_FALSE(admit(caps, f, p).admitted);
      // A random running node finishes.
      if (!running.empty()) {
        std::uniform_int_distribution<std::size_t> pick(0, running.size() - 1);
        const std::size_t i = pick(random);
        const PlanNode done = running[i];
        running.erase(running.begin() + static_cast<std::ptrdiff_t>(i));
        --f.global;
        --f.per_rack[done.rack];
        for (const auto& [key, value] : done.labels) --f.per_label[key][value];
      }
    }
  }
}

TEST_CASE("the makespan lower bound counts the rounds the caps force", "[campaign]") {
  // 1,250 nodes in 125 racks of 10; caps 200 global, 2 per rack; one wave of all.
  auto plan = planWaves(spec(1250, {kRest}), fleet(125, 10));
  Caps caps;
  caps.global = 200;
  caps.per_rack = 2;
  // ceil(1250 / 200) = 7 rounds globally; ceil(10 / 2) = 5 per rack: 7 rounds of 600 s.
  CHECK(makespanLowerBound(plan, caps, 600, 0) == Approx(4200));
  caps.global = 0;  // unlimited: the racks force 5
  CHECK(makespanLowerBound(plan, caps, 600, 0) == Approx(3000));
  caps.per_label = {{"pdu", 1}};  // 5 nodes per PDU: 5 rounds as well
  CHECK(makespanLowerBound(plan, caps, 600, 0) == Approx(3000));
  caps.per_label = {{"nvlink_domain", 4}};  // 20 nodes per domain: 5
  CHECK(makespanLowerBound(plan, caps, 600, 0) == Approx(3000));
  caps.per_label = {{"nvlink_domain", 2}};  // 10 rounds
  CHECK(makespanLowerBound(plan, caps, 600, 0) == Approx(6000));
  // Two waves of 2 racks x 5: canary 2 (one per rack, 1 round) + 8 (4 per rack: 2 rounds), one
  // bake between them.
  Caps two;
  two.per_rack = 2;
  auto waved = planWaves(spec(2, {kRest}), fleet(2, 5));
  CHECK(sizes(waved) == Sizes{2, 8});
  CHECK(makespanLowerBound(waved, two, 100, 60) == Approx(100 + 60 + 200));
  // The benchmark: canary 2, waves 1%, 10%, 50%, rest over 1,250 nodes, caps 200 and 2.
  Caps bench;
  bench.global = 200;
  bench.per_rack = 2;
  auto full = planWaves(spec(2, {pct(1), pct(10), pct(50), kRest}), fleet(125, 10));
  // Waves 2, 13, 125, 624, 486: rounds 1, 1, 1, ceil(624/200) = 4 (per rack <= 5, i.e. 3),
  // ceil(486/200) = 3: 10 rounds and 4 bakes.
  CHECK(makespanLowerBound(full, bench, 600, 300) == Approx(10 * 600 + 4 * 300));
  CHECK(makespanLowerBound({}, bench, 600, 300) == 0);
}

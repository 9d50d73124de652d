// node.idle_gpu: a GPU idle while its node-mates are busy (inventory/health/idle_gpu.hpp).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "inventory/health/idle_gpu.hpp"

namespace h = inventory::health;

namespace {

const h::Days kFirst{std::chrono::days{20400}};

// `days` days of one GPU at `pct` utilisation from `readings` readings a day; from day
// `idle_from` on it reads `idle_pct`.
std::vector<h::DayAggregate> daysOf(int days, double pct, int idle_from = 1000, double idle_pct = 0,
                                    std::int64_t readings = 2880) {
  std::vector<h::DayAggregate> out;
  for (int i = 0; i < days; ++i) {
    h::DayAggregate d;
    d.day = kFirst + std::chrono::days{i};
    d.samples = readings;
    const double v = i >= idle_from ? idle_pct : pct;
    d.gpu_utilization_pct = {readings, v * static_cast<double>(readings), v, v};
    out.push_back(d);
  }
  return out;
}

struct Node {
  std::vector<std::vector<h::DayAggregate>> days;
  h::NodeHistory history() const {
    h::NodeHistory node;
    node.label = "node 7";
    for (std::size_t i = 0; i < days.size(); ++i) {
      node.gpus.push_back({"GPU-" + std::to_string(i), days[i]});
    }
    return node;
  }
};

Node busyNode(int gpus, int days) {
  Node n;
  for (int i = 0; i < gpus; ++i) n.days.push_back(daysOf(days, 95 + i % 4));
  return n;
}

}  // namespace

TEST_CASE("a GPU idle 2 days while its node-mates work is flagged", "[health][rules]") {
  Node node = busyNode(8, 5);
  node.days[3] = daysOf(5, 97, /*idle_from=*/3, /*idle_pct=*/0.4);
  auto drafts = h::evaluateIdleGpus(h::defaultPolicy(), node.history());
  REQUIRE(drafts.size() == 1);
  CHECK(drafts[0].serial == "GPU-3");
  CHECK(drafts[0].rule == "node.idle_gpu");
  CHECK(drafts[0].action == h::FlagAction::kRerunBurnIn);
  CHECK(drafts[0].raised_at == h::endOf(kFirst + std::chrono::days{4}));
  CHECK(drafts[0].reason.find("utilisation 0.4% (at most 5%)") != std::string::npos);
  CHECK(drafts[0].reason.find("7 node-mates' median is") != std::string::npos);
  CHECK(drafts[0].reason.find("node 7") != std::string::npos);
  const auto evidence = nlohmann::json::parse(drafts[0].evidence_json);
  REQUIRE(evidence["days"].size() == 2);
  CHECK(evidence["days"][0]["day"] == h::formatDay(kFirst + std::chrono::days{3}));
}

TEST_CASE("an idle GPU is not flagged too early or in an idle node", "[health][rules]") {
  // One idle day only: not yet.
  Node one_day = busyNode(8, 5);
  one_day.days[2] = daysOf(5, 97, 4, 0);
  CHECK(h::evaluateIdleGpus(h::defaultPolicy(), one_day.history()).empty());
  // Idle two days, but busy again on the latest: the run is over.
  Node back = busyNode(8, 5);
  back.days[2] = daysOf(5, 97, 2, 0);
  back.days[2][4].gpu_utilization_pct = {2880, 97.0 * 2880, 97, 97};
  CHECK(h::evaluateIdleGpus(h::defaultPolicy(), back.history()).empty());
  // The whole node idle (between jobs): nobody is left out.
  Node idle;
  for (int i = 0; i < 8; ++i) idle.days.push_back(daysOf(5, 0));
  CHECK(h::evaluateIdleGpus(h::defaultPolicy(), idle.history()).empty());
  // Mates at 30%: not busy enough to say the GPU was left out.
  Node light;
  for (int i = 0; i < 8; ++i) light.days.push_back(daysOf(5, 30));
  light.days[1] = daysOf(5, 30, 2, 0);
  CHECK(h::evaluateIdleGpus(h::defaultPolicy(), light.history()).empty());
  // At 8%, above the 5% threshold.
  Node some = busyNode(8, 5);
  some.days[5] = daysOf(5, 97, 2, 8);
  CHECK(h::evaluateIdleGpus(h::defaultPolicy(), some.history()).empty());
}

TEST_CASE("an idle GPU needs enough mates and readings to be judged", "[health][rules]") {
  // 3 mates reporting: fewer than the rule's 4.
  Node small = busyNode(4, 5);
  small.days[0] = daysOf(5, 97, 2, 0);
  CHECK(h::evaluateIdleGpus(h::defaultPolicy(), small.history()).empty());
  Node five = busyNode(5, 5);
  five.days[0] = daysOf(5, 97, 2, 0);
  CHECK(h::evaluateIdleGpus(h::defaultPolicy(), five.history()).size() == 1);
  // The idle GPU's days carry too few readings (a GPU whose monitor barely reports).
  Node sparse = busyNode(8, 5);
  sparse.days[4] = daysOf(5, 97, 2, 0, /*readings=*/100);
  CHECK(h::evaluateIdleGpus(h::defaultPolicy(), sparse.history()).empty());
  // No utilisation at all (an agent that does not send it).
  Node none = busyNode(8, 5);
  for (auto& gpu : none.days) {
    for (auto& d : gpu) d.gpu_utilization_pct = {};
  }
  CHECK(h::evaluateIdleGpus(h::defaultPolicy(), none.history()).empty());
}

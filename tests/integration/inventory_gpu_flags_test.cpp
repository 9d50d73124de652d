// GPU health flags against a real PostgreSQL: one open flag per GPU and rule, acknowledge and
// clear with who and when, flag events in the GPU's history, and the evidence the rules read.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "integration/inventory_test_support.hpp"
#include "inventory/gpu_flags.hpp"
#include "inventory/gpu_health.hpp"

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

const h::Seconds kNow = *h::parseUtc("2026-12-04T12:00:00Z");

h::FlagDraft draft(const std::string& serial, const std::string& rule, h::Seconds evidence_at) {
  h::FlagDraft d;
  d.serial = serial;
  d.rule = rule;
  d.severity = h::FlagSeverity::kCritical;
  d.action = h::FlagAction::kDrain;
  d.reason = "XID 79 at " + h::formatUtc(evidence_at);
  d.evidence_json = R"({"xid": 79})";
  d.raised_at = evidence_at;
  return d;
}

h::GpuSample reading(const std::string& serial, double temp, bool pending = false) {
  h::GpuSample g;
  g.serial = serial;
  g.temperature_c = temp;
  g.power_w = 400;
  g.sm_clock_mhz = 1980;
  g.remap_pending = pending;
  g.counters[static_cast<std::size_t>(h::Counter::kEccCorrectedVolatile)] = 0;
  return g;
}

std::vector<std::string> eventKinds(const std::string& url, const std::string& serial) {
  const std::string joined =
      scalar(url,
             "SELECT coalesce(string_agg(kind, ',' ORDER BY at, id), '') FROM "
             "gpu_health_events WHERE gpu_serial = '" +
                 serial + "' AND kind LIKE 'flag_%'");
  std::vector<std::string> out;
  std::size_t start = 0;
  while (!joined.empty() && start <= joined.size()) {
    const auto end = joined.find(',', start);
    out.push_back(joined.substr(start, end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return out;
}

}  // namespace

TEST_CASE("one open flag per GPU and rule; acknowledge and clear are recorded with who and when",
          "[integration][inventory][health]") {
  auto inv = inventory_test::freshInventory();
  auto& db = *inv.db;
  auto node = makeNode(db, "NODE-F1");
  REQUIRE_OK(ingestHealthBatch(db, node.id, {kNow - 1h, {reading("GPU-A", 60)}}, kNow));

  const auto t1 = utc("2026-12-04T10:00:00Z");
  auto first = raiseFlags(db, {draft("GPU-A", "nvidia.xid_drain", t1)}, kNow);
  REQUIRE_OK(first);
  REQUIRE(first->raised.size() == 1);
  const GpuFlag f = first->raised[0];
  CHECK(f.state == "open");
  CHECK(f.severity == "critical");
  CHECK(f.action == "drain");
  CHECK(f.node_id == node.id);
  CHECK(f.evidence_at == "2026-12-04T10:00:00.000000Z");
  CHECK(nlohmann::json::parse(f.evidence_json)["xid"] == 79);

  // The same rule again (the next evaluation): no second flag. Another rule: a flag of its own.
  auto again = raiseFlags(
      db, {draft("GPU-A", "nvidia.xid_drain", t1 + 1h), draft("GPU-A", "repeat.offender", t1)},
      kNow + 5min);
  REQUIRE_OK(again);
  CHECK(again->raised.size() == 1);
  CHECK(again->already_open == 1);
  CHECK(count(inv.url, "gpu_flags") == 2);

  // Acknowledged: still counts as open for raising.
  auto acked = acknowledgeFlag(db, f.id, "alice", "looking", kNow + 10min);
  REQUIRE_OK(acked);
  CHECK(acked->state == "acknowledged");
  CHECK(acked->acknowledged_by == "alice");
  CHECK(acked->acknowledged_at == "2026-12-04T12:10:00.000000Z");
  auto twice = acknowledgeFlag(db, f.id, "bob", "", kNow + 11min);
  REQUIRE_FALSE(twice.ok());
  CHECK(twice.error().code == "flag_not_open");
  CHECK(raiseFlags(db, {draft("GPU-A", "nvidia.xid_drain", t1)}, kNow + 12min)->already_open == 1);

  auto cleared = clearFlag(db, f.id, "alice", "reseated", kNow + 20min);
  REQUIRE_OK(cleared);
  CHECK(cleared->state == "cleared");
  CHECK(cleared->cleared_by == "alice");
  CHECK(cleared->clear_note == "reseated");
  CHECK(cleared->acknowledged_by == "alice");  // the acknowledgement is kept
  auto cleared_again = clearFlag(db, f.id, "alice", "", kNow + 21min);
  REQUIRE_FALSE(cleared_again.ok());
  CHECK(cleared_again.error().code == "flag_cleared");

  // The evidence the operator cleared does not raise the flag again; newer evidence does.
  auto same = raiseFlags(db, {draft("GPU-A", "nvidia.xid_drain", t1 + 1h)}, kNow + 25min);
  REQUIRE_OK(same);
  CHECK(same->raised.empty());
  CHECK(same->suppressed == 1);
  auto newer = raiseFlags(db, {draft("GPU-A", "nvidia.xid_drain", kNow + 30min)}, kNow + 31min);
  REQUIRE_OK(newer);
  REQUIRE(newer->raised.size() == 1);
  CHECK(newer->raised[0].id != f.id);

  CHECK(eventKinds(inv.url, "GPU-A") == std::vector<std::string>{"flag_raised", "flag_raised",
                                                                 "flag_acknowledged",
                                                                 "flag_cleared", "flag_raised"});
  CHECK(
      scalar(inv.url, "SELECT detail->>'by' FROM gpu_health_events WHERE kind = 'flag_cleared'") ==
      "alice");

  // Unknown flags, missing actors, bad drafts: refused, nothing written.
  CHECK(acknowledgeFlag(db, 999999, "alice", "", kNow).error().kind ==
        common::ErrorKind::kNotFound);
  CHECK(clearFlag(db, f.id, "", "", kNow).error().field == "by");
  auto bad = draft("GPU-B", "trend.ecc_cusum", t1);
  bad.evidence_json = "[1]";
  auto refused = raiseFlags(db, {draft("GPU-B", "nvidia.xid48_dbe", t1), bad}, kNow);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().field == "drafts[1].evidence");
  CHECK(count(inv.url, "gpu_flags") == 3);

  // Lists: per GPU, per node, fleet-wide filtered by state, rule and severity.
  FlagFilter by_gpu;
  by_gpu.serial = "GPU-A";
  CHECK(listFlags(db, by_gpu)->size() == 3);
  FlagFilter open;
  open.state = "open";
  CHECK(listFlags(db, open)->size() == 2);
  FlagFilter by_rule;
  by_rule.rule = "repeat.offender";
  by_rule.node_id = node.id;
  CHECK(listFlags(db, by_rule)->size() == 1);
  FlagFilter other_node;
  other_node.node_id = node.id + 1000;
  CHECK(listFlags(db, other_node)->empty());
  FlagFilter warning;
  warning.severity = "warning";
  CHECK(listFlags(db, warning)->empty());

  // The drain is started once.
  CHECK(*markFlagActionStarted(db, newer->raised[0].id, std::nullopt, kNow + 32min));
  CHECK_FALSE(*markFlagActionStarted(db, newer->raised[0].id, std::nullopt, kNow + 33min));
  CHECK(getFlag(db, newer->raised[0].id)->action_at == "2026-12-04T12:32:00.000000Z");
  // Not on a flag an operator cleared (or acknowledged): their decision stands.
  CHECK_FALSE(*markFlagActionStarted(db, f.id, std::nullopt, kNow + 34min));
  CHECK(getFlag(db, f.id)->action_at.empty());
}

TEST_CASE("the rules' evidence is read from the roll-ups, counter state, bursts and peers",
          "[integration][inventory][health]") {
  auto inv = inventory_test::freshInventory();
  auto& db = *inv.db;
  const auto rack = makeRack(db, "R07");
  auto n1 = makeNode(db, "NODE-E1", "", rack, 10);
  auto n2 = makeNode(db, "NODE-E2", "", rack, 12);
  const auto day1 = utc("2026-12-03T10:00:00Z");
  std::vector<h::GpuSample> a, b;
  for (int i = 0; i < 4; ++i) {
    a.push_back(reading("GPU-E1-" + std::to_string(i), 60 + i));
    b.push_back(reading("GPU-E2-" + std::to_string(i), 62 + i));
  }
  a[0].xids = {{79, day1}};
  REQUIRE_OK(ingestHealthBatch(db, n1.id, {day1, a}, kNow));
  REQUIRE_OK(ingestHealthBatch(db, n2.id, {day1, b}, kNow));
  a[0].xids.clear();
  a[0].remap_pending = true;
  REQUIRE_OK(ingestHealthBatch(db, n1.id, {kNow - 30min, a}, kNow));
  REQUIRE_OK(rollUpHealth(db, kNow));

  auto input = loadFlagEvaluationInput(db, kNow - 1h, kNow);
  REQUIRE_OK(input);
  REQUIRE(input->gpus.size() == 4);  // node 2's GPUs have no reading in the last hour
  const auto& e = input->gpus[0];
  CHECK(e.serial == "GPU-E1-0");
  REQUIRE(e.days.size() == 1);  // 2026-12-03; today is not complete
  CHECK(e.days[0].samples == 1);
  CHECK(*e.days[0].temperature_c.avg() == 60);
  CHECK(e.days[0].xids == 1);
  REQUIRE(e.counters);
  CHECK(e.counters->remap_pending);
  REQUIRE(e.xid_bursts.size() == 1);
  CHECK(e.xid_bursts[0].xid == 79);
  // Both nodes' GPUs are the rack's peer group (no component records: model unknown).
  REQUIRE(input->peer_groups.size() == 1);
  CHECK(input->peer_groups[0].label == "rack R07");
  REQUIRE(input->peer_groups[0].days.size() == 1);
  CHECK(input->peer_groups[0].days[0].gpus.size() == 8);

  // The rules on it: remap pending (reset at idle), and XID 79 is older than 24 h.
  auto drafts = h::evaluateGpu(h::defaultPolicy(), e);
  REQUIRE(drafts.size() == 1);
  CHECK(drafts[0].rule == "nvidia.remap_pending");
  auto raised = raiseFlags(db, drafts, kNow);
  REQUIRE_OK(raised);
  CHECK(raised->raised.size() == 1);
  auto next = loadFlagEvaluationInput(db, kNow - 1h, kNow);
  REQUIRE_OK(next);
  REQUIRE(next->gpus[0].past_flags.size() == 1);
  CHECK(next->gpus[0].past_flags[0].rule == "nvidia.remap_pending");
}

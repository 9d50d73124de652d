#include <catch2/catch.hpp>

#include <chrono>

#include "integration/inventory_test_support.hpp"
#include "inventory/campaigns.hpp"
#include "inventory/nodes.hpp"
#include "inventory/workflow_runs.hpp"

using namespace inventory;
using inventory_test::count;
using inventory_test::makeNode;
using inventory_test::makeRack;
using inventory_test::scalar;

namespace {

const CampaignTime kT0 = CampaignTime(std::chrono::hours(24 * 20000));

NewCampaign firmwareCampaign(const std::string& name, const std::vector<Id>& nodes) {
  NewCampaign c;
  c.name = name;
  c.kind = "firmware";
  c.spec_json = R"({"name":")" + name + R"("})";
  c.baseline_name = "dgx-h100";
  c.baseline_revision = 3;
  c.created_by = "alice";
  c.now = kT0;
  int position = 0;
  for (Id id : nodes) {
    PlannedCampaignNode n;
    n.node_id = id;
    n.wave = position == 0 ? 0 : 1;
    n.position = position++;
    n.components_json = R"([{"component":"bmc","from":"1.0","to":"1.2","package":"bmc-1.2"}])";
    n.estimated_seconds = 900;
    n.rack = "R01";
    n.site = "dc1";
    n.hardware_model = "DGX H100";
    n.labels_json = R"({"pdu":"p1"})";
    c.nodes.push_back(n);
  }
  return c;
}

CampaignTransition transition(Id id, std::vector<std::string> expected, std::string to,
                              CampaignTime now = kT0) {
  CampaignTransition t;
  t.campaign_id = id;
  t.expected = std::move(expected);
  t.to = std::move(to);
  t.actor = "alice";
  t.now = now;
  return t;
}

}  // namespace

TEST_CASE("campaign candidates: site, racks, model, states, labels and explicit ids",
          "[integration][inventory][campaigns]") {
  auto inv = inventory_test::freshInventory();
  auto& db = *inv.db;
  Id r1 = makeRack(db, "R01");
  Id r2 = makeRack(db, "R02");
  Id r3 = makeRack(db, "R03", "dc2");
  auto a = makeNode(db, "SN-A", "", r1, 1);
  auto b = makeNode(db, "SN-B", "", r2, 1);
  auto c = makeNode(db, "SN-C", "", r3, 1);
  auto d = makeNode(db, "SN-D", "", r1, 5, "HGX B200");
  auto unracked = makeNode(db, "SN-E");
  REQUIRE_OK(setNodeState(db, a.id, "ready", "t", ""));
  REQUIRE_OK(setNodeState(db, b.id, "ready", "t", ""));
  scalar(inv.url,
         "UPDATE nodes SET labels = '{\"pdu\":\"p1\",\"nvlink_domain\":\"n1\"}' WHERE id = " +
             std::to_string(a.id));
  scalar(inv.url,
         "UPDATE nodes SET labels = '{\"pdu\":\"p2\"}' WHERE id = " + std::to_string(b.id));

  auto ids = [](const std::vector<CampaignCandidate>& cs) {
    std::vector<Id> out;
    for (const auto& x : cs) out.push_back(x.node_id);
    return out;
  };

  auto all = campaignCandidates(db, {});
  REQUIRE_OK(all);
  CHECK(ids(*all) == std::vector<Id>{a.id, b.id, c.id, d.id, unracked.id});

  CampaignSelector site;
  site.site = "dc1";
  auto in_site = campaignCandidates(db, site);
  REQUIRE_OK(in_site);
  CHECK(ids(*in_site) == std::vector<Id>{a.id, b.id, d.id});

  CampaignSelector racks;
  racks.racks = {"R02", "R03"};
  CHECK(ids(campaignCandidates(db, racks).value()) == std::vector<Id>{b.id, c.id});

  CampaignSelector model;
  model.model = "HGX B200";
  CHECK(ids(campaignCandidates(db, model).value()) == std::vector<Id>{d.id});

  CampaignSelector ready;
  ready.states = {"ready"};
  CHECK(ids(campaignCandidates(db, ready).value()) == std::vector<Id>{a.id, b.id});

  CampaignSelector labelled;
  labelled.labels = {{"pdu", "p1"}};
  auto by_label = campaignCandidates(db, labelled);
  REQUIRE_OK(by_label);
  REQUIRE(by_label->size() == 1);
  CHECK(by_label->front().node_id == a.id);
  CHECK(by_label->front().chassis_serial == "SN-A");
  CHECK(by_label->front().site == "dc1");
  CHECK(by_label->front().rack == "R01");
  CHECK(by_label->front().hardware_model == "DGX H100");
  CHECK(by_label->front().state == "ready");
  CHECK(by_label->front().labels_json.find("\"nvlink_domain\": \"n1\"") != std::string::npos);

  CampaignSelector explicit_ids;
  explicit_ids.node_ids = {c.id, unracked.id, 99999};
  explicit_ids.racks = {"R03"};
  CHECK(ids(campaignCandidates(db, explicit_ids).value()) == std::vector<Id>{c.id});
}

TEST_CASE("campaigns: created with their nodes in one transaction, read back, listed",
          "[integration][inventory][campaigns]") {
  auto inv = inventory_test::freshInventory();
  auto& db = *inv.db;
  Id r1 = makeRack(db, "R01");
  auto a = makeNode(db, "SN-A", "", r1, 1);
  auto b = makeNode(db, "SN-B", "", r1, 5);

  auto created = createCampaign(db, firmwareCampaign("bmc-1-2", {a.id, b.id}));
  REQUIRE_OK(created);
  CHECK(created->state == "draft");
  CHECK(created->kind == "firmware");
  CHECK(created->baseline_name == "dgx-h100");
  CHECK(created->baseline_revision == 3);
  CHECK(created->node_count == 2);
  CHECK(created->created_by == "alice");
  CHECK(created->created_at == "2024-10-04T00:00:00.000000Z");
  CHECK(created->started_at.empty());
  CHECK_FALSE(created->wave_started_time.has_value());

  auto nodes = campaignNodes(db, created->id, {});
  REQUIRE_OK(nodes);
  REQUIRE(nodes->size() == 2);
  CHECK((*nodes)[0].node_id == a.id);
  CHECK((*nodes)[0].chassis_serial == "SN-A");
  CHECK((*nodes)[0].wave == 0);
  CHECK((*nodes)[0].state == "pending");
  CHECK((*nodes)[0].estimated_seconds == 900);
  CHECK((*nodes)[0].components_json.find("bmc-1.2") != std::string::npos);
  CHECK((*nodes)[1].wave == 1);

  CampaignNodeFilter wave1;
  wave1.wave = 1;
  auto only1 = campaignNodes(db, created->id, wave1);
  REQUIRE_OK(only1);
  REQUIRE(only1->size() == 1);
  CHECK(only1->front().node_id == b.id);

  auto progress = campaignProgress(db, created->id);
  REQUIRE_OK(progress);
  REQUIRE(progress->size() == 2);
  CHECK((*progress)[0].wave == 0);
  CHECK((*progress)[0].total == 1);
  CHECK((*progress)[0].estimated_seconds == 900);
  CHECK((*progress)[0].by_state.at("pending") == 1);

  auto events = campaignEvents(db, created->id, {});
  REQUIRE_OK(events);
  REQUIRE(events->items.size() == 1);
  CHECK(events->items[0].kind == "created");
  CHECK(events->items[0].actor == "alice");

  // A duplicate name, a bad node and no nodes store nothing.
  auto dup = createCampaign(db, firmwareCampaign("bmc-1-2", {a.id}));
  REQUIRE_FALSE(dup.ok());
  CHECK(dup.error().code == "duplicate_campaign");
  CHECK(dup.error().field == "name");
  auto unknown_node = createCampaign(db, firmwareCampaign("other", {a.id, 424242}));
  REQUIRE_FALSE(unknown_node.ok());
  CHECK(unknown_node.error().code == "unknown_node");
  auto empty = createCampaign(db, firmwareCampaign("empty", {}));
  REQUIRE_FALSE(empty.ok());
  CHECK(empty.error().code == "campaign_selects_nothing");
  CHECK(empty.error().field == "selector");
  CHECK(count(inv.url, "campaigns") == 1);
  CHECK(count(inv.url, "campaign_nodes") == 2);
  CHECK(count(inv.url, "campaign_events") == 1);

  auto second = createCampaign(db, firmwareCampaign("second", {b.id}));
  REQUIRE_OK(second);
  CampaignFilter filter;
  filter.page.limit = 1;
  auto page = listCampaigns(db, filter);
  REQUIRE_OK(page);
  REQUIRE(page->items.size() == 1);
  CHECK(page->items[0].name == "bmc-1-2");
  REQUIRE(page->next_after.has_value());
  filter.page.after = *page->next_after;
  auto page2 = listCampaigns(db, filter);
  REQUIRE_OK(page2);
  REQUIRE(page2->items.size() == 1);
  CHECK(page2->items[0].name == "second");
  CHECK_FALSE(page2->next_after.has_value());

  auto missing = getCampaign(db, 9999);
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().code == "campaign_not_found");
  CHECK(campaignNodes(db, 9999, {}).error().code == "campaign_not_found");
}

TEST_CASE("campaign transitions: expected states, pause reasons, cancel, one open campaign a node",
          "[integration][inventory][campaigns]") {
  auto inv = inventory_test::freshInventory();
  auto& db = *inv.db;
  Id r1 = makeRack(db, "R01");
  auto a = makeNode(db, "SN-A", "", r1, 1);
  auto b = makeNode(db, "SN-B", "", r1, 5);
  auto first = createCampaign(db, firmwareCampaign("first", {a.id, b.id}));
  REQUIRE_OK(first);
  // Drafts may overlap; starting one takes its nodes.
  auto overlapping = createCampaign(db, firmwareCampaign("overlapping", {b.id}));
  REQUIRE_OK(overlapping);

  auto pause_draft = transitionCampaign(db, transition(first->id, {"running"}, "paused"));
  REQUIRE_FALSE(pause_draft.ok());
  CHECK(pause_draft.error().kind == common::ErrorKind::kConflict);
  CHECK(pause_draft.error().code == "campaign_state");
  CHECK(pause_draft.error().message.find("is draft") != std::string::npos);

  auto started = transitionCampaign(
      db, transition(first->id, {"draft"}, "running", kT0 + std::chrono::minutes(1)));
  REQUIRE_OK(started);
  CHECK(started->state == "running");
  CHECK(started->started_at == "2024-10-04T00:01:00.000000Z");

  // The overlapping draft cannot start, and a new campaign over b cannot be created.
  auto start_other = transitionCampaign(db, transition(overlapping->id, {"draft"}, "running"));
  REQUIRE_FALSE(start_other.ok());
  CHECK(start_other.error().code == "node_in_other_campaign");
  CHECK(start_other.error().message.find("SN-B") != std::string::npos);
  CHECK(start_other.error().message.find("first") != std::string::npos);
  auto create_other = createCampaign(db, firmwareCampaign("third", {b.id}));
  REQUIRE_FALSE(create_other.ok());
  CHECK(create_other.error().code == "node_in_other_campaign");
  CHECK(create_other.error().message.find("node " + std::to_string(b.id)) != std::string::npos);
  CHECK(count(inv.url, "campaigns") == 2);

  auto pause = transition(first->id, {"running"}, "paused");
  pause.reason = "failure budget spent";
  pause.detail_json = R"({"failed":[1]})";
  pause.event_kind = "paused";
  auto paused = transitionCampaign(db, pause);
  REQUIRE_OK(paused);
  CHECK(paused->pause_reason == "failure budget spent");
  CHECK(paused->pause_detail_json == R"({"failed": [1]})");

  auto resumed = transitionCampaign(db, transition(first->id, {"paused"}, "running"));
  REQUIRE_OK(resumed);
  CHECK(resumed->pause_reason.empty());
  CHECK(resumed->started_at == "2024-10-04T00:01:00.000000Z");

  auto rollback = transition(first->id, {"running", "paused"}, "running");
  rollback.rollback_requested = true;
  REQUIRE(transitionCampaign(db, rollback)->rollback_requested);

  // Waves and node outcomes.
  auto wave = setCampaignWave(db, first->id, 1, kT0 + std::chrono::minutes(5),
                              kT0 + std::chrono::minutes(35), kT0 + std::chrono::minutes(5));
  REQUIRE_OK(wave);
  CHECK(wave->current_wave == 1);
  CHECK(wave->bake_until == "2024-10-04T00:35:00.000000Z");
  CHECK(wave->bake_until_time == kT0 + std::chrono::minutes(35));

  CampaignNodeUpdate running{first->id, a.id,         "running",    "",
                             "{}",      std::nullopt, "controller", kT0 + std::chrono::minutes(2)};
  auto node_running = updateCampaignNode(db, running);
  REQUIRE_OK(node_running);
  CHECK(node_running->started_at == "2024-10-04T00:02:00.000000Z");
  CampaignNodeUpdate failed{
      first->id,          a.id,         "failed",     "version_unchanged",
      R"({"bmc":"1.0"})", std::nullopt, "controller", kT0 + std::chrono::minutes(9)};
  auto node_failed = updateCampaignNode(db, failed);
  REQUIRE_OK(node_failed);
  CHECK(node_failed->state == "failed");
  CHECK(node_failed->reason == "version_unchanged");
  CHECK(node_failed->finished_at == "2024-10-04T00:09:00.000000Z");
  CHECK(node_failed->started_at == "2024-10-04T00:02:00.000000Z");
  CHECK(updateCampaignNode(db, {first->id, 424242, "running", "", "{}", std::nullopt, "c", kT0})
            .error()
            .code == "campaign_node_not_found");
  CHECK(updateCampaignNode(db, {first->id, a.id, "exploded", "", "{}", std::nullopt, "c", kT0})
            .error()
            .code == "invalid_state");

  auto cancelled = transitionCampaign(
      db, transition(first->id, {"running", "paused"}, "cancelled", kT0 + std::chrono::hours(1)));
  REQUIRE_OK(cancelled);
  CHECK(cancelled->finished_at == "2024-10-04T01:00:00.000000Z");
  auto b_node = getCampaignNode(db, first->id, b.id);
  REQUIRE_OK(b_node);
  CHECK(b_node->state == "cancelled");
  CHECK(getCampaignNode(db, first->id, a.id)->state == "failed");

  // Now b is free again: the overlapping draft starts.
  REQUIRE_OK(transitionCampaign(db, transition(overlapping->id, {"draft"}, "running")));

  auto events = campaignEvents(db, first->id, {});
  REQUIRE_OK(events);
  std::vector<std::string> kinds;
  for (const auto& e : events->items) kinds.push_back(e.kind);
  CHECK(kinds == std::vector<std::string>{"created", "state_changed", "paused", "state_changed",
                                          "state_changed", "node_running", "node_failed",
                                          "state_changed"});
  CHECK(events->items[6].message.find("version_unchanged") != std::string::npos);
  CHECK(events->items[6].node_id == a.id);

  CampaignEvent note;
  note.campaign_id = first->id;
  note.at_time = kT0 + std::chrono::hours(2);
  note.actor = "controller";
  note.kind = "gate";
  note.message = "canary within 1% of control";
  auto appended = appendCampaignEvent(db, note);
  REQUIRE_OK(appended);
  CHECK(appended->at == "2024-10-04T02:00:00.000000Z");
  note.campaign_id = 9999;
  CHECK(appendCampaignEvent(db, note).error().code == "campaign_not_found");
}

TEST_CASE("campaign admission: the decision and the slots in one step, refused on a stale look",
          "[integration][inventory][campaigns]") {
  auto inv = inventory_test::freshInventory();
  auto& db = *inv.db;
  Id r1 = makeRack(db, "R01");
  std::vector<Id> ids;
  for (int i = 0; i < 4; ++i)
    ids.push_back(makeNode(db, "SN-" + std::to_string(i), "", r1, i + 1).id);
  auto c = createCampaign(db, firmwareCampaign("admit", ids));
  REQUIRE_OK(c);
  const Id a = ids[0], b = ids[1], d = ids[2];
  auto admission = [&](std::vector<Id> running, std::vector<Id> admit, int wave = 0) {
    CampaignAdmission x;
    x.campaign_id = c->id;
    x.wave = wave;
    x.running = std::move(running);
    x.admit = std::move(admit);
    x.detail_json = R"({"mode":"update"})";
    x.actor = "controller";
    x.now = kT0 + std::chrono::minutes(3);
    return x;
  };
  auto refused = [&](const CampaignAdmission& x, const std::string& why) {
    auto r = admitCampaignNodes(db, x);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().kind == common::ErrorKind::kConflict);
    CHECK(r.error().code == "campaign_changed");
    INFO(r.error().message);
    CHECK(r.error().message.find(why) != std::string::npos);
  };
  // A draft admits nothing.
  refused(admission({}, {a}), "it is draft");
  REQUIRE_OK(transitionCampaign(db, transition(c->id, {"draft"}, "running")));

  REQUIRE_OK(admitCampaignNodes(db, admission({}, {a})));
  auto node = getCampaignNode(db, c->id, a);
  CHECK(node->state == "running");
  CHECK_FALSE(node->run_id.has_value());  // admitted, no run yet
  CHECK(node->started_at == "2024-10-04T00:03:00.000000Z");
  CHECK(node->detail_json == R"({"mode": "update"})");
  CHECK(scalar(inv.url,
               "SELECT count(*) FROM campaign_events WHERE kind = 'node_running'"
               " AND detail->>'admitted' = 'true' AND node_id = " +
                   std::to_string(a)) == "1");

  // A second controller that looked before that admission (nothing in flight) is refused, and
  // writes nothing, even for a node nobody else admitted.
  refused(admission({}, {b}), "1 node(s) in flight, not the 0 counted");
  CHECK(getCampaignNode(db, c->id, b)->state == "pending");
  // A node admitted already is not pending any more; an admission is all or nothing.
  refused(admission({a}, {b, a}), "is not pending");
  CHECK(getCampaignNode(db, c->id, b)->state == "pending");
  // The look's wave and the rollback flag are part of it too.
  refused(admission({a}, {b}, 1), "in wave 0, not 1");
  auto rb = admission({a}, {a});
  rb.rollback = true;
  refused(rb, "rollback");

  // The run recorded once; a node that has one is not an orphan any more.
  auto makeRun = [&](const std::string& subject) {
    NewWorkflowRun run;
    run.kind = "node_firmware_update";
    run.subject = subject;
    run.node_id = a;
    run.step = "drain";
    run.now = kT0;
    auto created = createWorkflowRun(db, run);
    REQUIRE_OK(created);
    return created->run.id;
  };
  const Id run = makeRun("first"), other = makeRun("second");
  auto set = setCampaignNodeRun(db, c->id, a, run);
  REQUIRE_OK(set);
  CHECK(*set);
  CHECK_FALSE(*setCampaignNodeRun(db, c->id, a, other));
  CHECK(getCampaignNode(db, c->id, a)->run_id == std::optional<Id>(run));

  // A node that finished leaves the in-flight set: the fresh look admits.
  REQUIRE_OK(updateCampaignNode(db, {c->id, a, "succeeded", "", "{}", std::nullopt, "controller",
                                     kT0 + std::chrono::minutes(4)}));
  refused(admission({a}, {b}), "0 node(s) in flight, not the 1 counted");
  REQUIRE_OK(admitCampaignNodes(db, admission({}, {b, d})));
  CHECK(getCampaignNode(db, c->id, d)->state == "running");

  // Paused: nothing is admitted.
  REQUIRE_OK(transitionCampaign(db, transition(c->id, {"running"}, "paused")));
  refused(admission({b, d}, {ids[3]}), "it is paused");
  CHECK(admitCampaignNodes(db,
                           [&] {
                             auto x = admission({}, {a});
                             x.campaign_id = 9999999;
                             return x;
                           }())
            .error()
            .code == "campaign_not_found");
}

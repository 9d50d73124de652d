// An image campaign through the engine: the controller starts node_image_update runs, each node
// is drained, network-booted (through its simulated DGX H100 BMC over HTTP) with a quick-check
// task that names the campaign's image version, and undrained; a node whose agent never comes up
// on the new version is booted back into its previous image and ends rolled_back. The channel
// moves only when the campaign completes. Real PostgreSQL, fake clock; this test plays the agent
// (it answers the tasks in the inventory as an agent booted into the named image would).
#include <catch2/catch.hpp>

#include <set>

#include "inventory/access.hpp"
#include "inventory/agent_tasks.hpp"
#include "inventory/campaigns.hpp"
#include "inventory/images.hpp"
#include "inventory/nodes.hpp"
#include "inventory/workflow_runs.hpp"
#include "workflows/campaign/spec.hpp"
#include "workflows/campaign/waves.hpp"
#include "workflows/engine.hpp"
#include "workflows/lifecycle_fixture.hpp"
#include "workflows/rollout.hpp"

namespace {

using lifecycle_test::FixtureOptions;
using lifecycle_test::LifecycleFixture;
using nlohmann::json;

template <class T>
T need(common::Result<T> r) {
  if (!r) FAIL(r.error().code + ": " + r.error().message);
  return std::move(r).value();
}

const char* kOld = "24.04.1";
const char* kNew = "24.04.2";

struct ImageBench {
  explicit ImageBench(int nodes) : fx(options(nodes)) {
    model = fx.bmc(1).identity.model;
    for (int i = 1; i <= nodes; ++i) addNode(i);
    registerImage(kOld);
    registerImage(kNew);
    need(inventory::promoteChannel(*fx.db, "stable", {"ubuntu", kOld}, "operator", "first"));
    workflows::EngineOptions eo;
    eo.owner = "test";
    eo.workers = 4;
    engine = std::make_unique<workflows::Engine>(fx.db, fx.clock, eo);
    workflows::RolloutSettings rs;
    workflows::registerRolloutWorkflows(*engine, fx.env.deps, fx.env.settings, rs);
  }

  static FixtureOptions options(int nodes) {
    FixtureOptions o;
    o.nodes = nodes;
    return o;
  }

  void addNode(int number) { node_ids.push_back(fx.addReadyNode(number, model)); }

  void registerImage(const std::string& version) {
    inventory::ImageRecord image;
    image.name = "ubuntu";
    image.version = version;
    image.manifest_json = json{{"name", "ubuntu"}, {"version", version}}.dump();
    image.key_id = "test";
    need(inventory::registerImage(*fx.db, image, "test"));
  }

  inventory::Id createCampaign(const std::string& name) {
    const json spec_json = {
        {"name", name},
        {"kind", "image"},
        {"image", {{"name", "ubuntu"}, {"version", kNew}, {"channel", "stable"}}},
        {"selector", {{"all", true}}},
        {"canary", {{"count", 1}}},
        {"waves", json::array({"rest"})},
        {"caps", {{"global", 1}}},
        {"failure_budget", {{"count", 0}}}};
    auto spec = need(workflows::campaign::parseCampaignSpec(spec_json));
    std::vector<workflows::campaign::PlanNode> plan_nodes;
    for (auto id : node_ids) {
      workflows::campaign::PlanNode p;
      p.id = id;
      p.site = fx.site;
      p.rack = fx.rack;
      p.model = model;
      plan_nodes.push_back(p);
    }
    inventory::NewCampaign c;
    c.name = name;
    c.kind = "image";
    c.spec_json = workflows::campaign::toJson(spec).dump();
    c.image_name = "ubuntu";
    c.image_version = kNew;
    c.created_by = "test";
    c.now = fx.clock->now();
    for (const auto& wave : workflows::campaign::planWaves(spec, plan_nodes)) {
      for (const auto& n : wave.nodes) {
        inventory::PlannedCampaignNode p;
        p.node_id = n.node.id;
        p.wave = n.wave;
        p.position = n.position;
        p.components_json = json::array({{{"component", "image"},
                                          {"from", std::string("ubuntu ") + kOld},
                                          {"to", std::string("ubuntu ") + kNew},
                                          {"package", nullptr}}})
                                .dump();
        p.site = fx.site;
        p.rack = fx.rack;
        p.hardware_model = model;
        c.nodes.push_back(p);
      }
    }
    return need(inventory::createCampaign(*fx.db, c)).id;
  }

  void start(inventory::Id id) {
    inventory::CampaignTransition t;
    t.campaign_id = id;
    t.expected = {"draft"};
    t.to = "running";
    t.actor = "test";
    t.now = fx.clock->now();
    need(inventory::transitionCampaign(*fx.db, t));
    workflows::StartRequest r;
    r.kind = workflows::kFirmwareCampaign;
    r.subject = workflows::campaignSubject(id);
    r.context = {{"campaign_id", id}};
    r.actor = "test";
    need(engine->start(r));
  }

  // The agent: a node booted into an image it comes up on registers and passes its task; one
  // booted into an image in `never_up` (per node) never registers; one in `fails_on` registers
  // and fails.
  void playAgents() {
    for (auto node : node_ids) {
      auto task = need(inventory::openTaskForNode(*fx.db, node));
      if (!task || task->state != "pending" || !seen.insert(task->id).second) continue;
      const json spec = json::parse(task->spec_json);
      const std::string version = spec["boot_image"].value("version", "");
      booted[node].push_back(version);
      if (never_up.count({node, version}) > 0) continue;
      need(inventory::recordRegistration(*fx.db, task->id, "{}", {}));
      need(inventory::markTaskStarted(*fx.db, task->id));
      const bool fails = fails_on.count({node, version}) > 0;
      need(inventory::finishAgentTask(*fx.db, task->id, fails ? "failed" : "passed", {}, "{}",
                                      "quick check"));
    }
  }

  std::string runUntil(inventory::Id id, const std::set<std::string>& states) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    while (std::chrono::steady_clock::now() < deadline) {
      const auto executed = need(engine->runOnce());
      playAgents();
      const auto c = need(inventory::getCampaign(*fx.db, id));
      if (states.count(c.state) > 0 && executed == 0) return c.state;
      if (executed == 0) advanceBoth();
    }
    return need(inventory::getCampaign(*fx.db, id)).state;
  }

  void advanceBoth() {
    const auto step = std::chrono::milliseconds(20);
    fx.clock->advance(step);
    fx.fleet->clock().advance(std::chrono::duration<double>(step).count() *
                              fx.options.lifecycle_time_scale);
  }

  std::string channelVersion() {
    return need(inventory::getChannel(*fx.db, "stable")).image.version;
  }

  LifecycleFixture fx;
  std::string model;
  std::unique_ptr<workflows::Engine> engine;
  std::vector<inventory::Id> node_ids;
  std::map<inventory::Id, std::vector<std::string>> booted;  // the versions each task named
  std::set<std::pair<inventory::Id, std::string>> never_up;
  std::set<std::pair<inventory::Id, std::string>> fails_on;  // comes up, fails the check
  std::set<inventory::Id> seen;  // tasks already answered (or left unanswered)
};

}  // namespace

TEST_CASE("an image campaign boots every node into the new version and then promotes the channel",
          "[rollout][image]") {
  ImageBench bench(2);
  const auto id = bench.createCampaign("ubuntu-24-04-2");
  bench.start(id);
  CHECK(bench.runUntil(id, {"completed", "paused", "cancelled"}) == "completed");
  for (const auto& n : need(inventory::campaignNodes(*bench.fx.db, id, {}))) {
    INFO("node " << n.node_id << " " << n.reason);
    CHECK(n.state == "succeeded");
    CHECK(need(inventory::getNode(*bench.fx.db, n.node_id)).state == "ready");
    CHECK(bench.booted[n.node_id] == std::vector<std::string>{kNew});
  }
  CHECK(bench.channelVersion() == kNew);
  const auto history = need(inventory::channelHistory(*bench.fx.db, "stable"));
  REQUIRE(!history.empty());
  CHECK(history.front().actor == "campaign:" + std::to_string(id));
  CHECK(history.front().reason.find("campaign " + std::to_string(id)) != std::string::npos);
  const auto audit = need(inventory::listAudit(*bench.fx.db, {}));
  REQUIRE(!audit.items.empty());
  CHECK(audit.items.front().action == "channels.promote");
  CHECK(audit.items.front().actor == "campaign:" + std::to_string(id));
}

TEST_CASE("a node that never comes up on the new image is booted back and the channel stays",
          "[rollout][image]") {
  ImageBench bench(2);
  const auto id = bench.createCampaign("ubuntu-24-04-2");
  const auto canary = need(inventory::campaignNodes(*bench.fx.db, id, {})).front().node_id;
  bench.never_up.insert({canary, kNew});
  bench.start(id);
  CHECK(bench.runUntil(id, {"completed", "paused", "cancelled"}) == "paused");
  const auto node = need(inventory::getCampaignNode(*bench.fx.db, id, canary));
  INFO(node.reason);
  CHECK(node.state == "rolled_back");
  CHECK(node.reason == "quick_check_timeout");
  CHECK(bench.booted[canary] == std::vector<std::string>{kNew, kOld});  // there and back
  CHECK(need(inventory::getNode(*bench.fx.db, canary)).state == "ready");
  CHECK(bench.channelVersion() == kOld);

  // An operator cancels the paused campaign: the channel is left as it was.
  inventory::CampaignTransition t;
  t.campaign_id = id;
  t.expected = {"paused"};
  t.to = "cancelled";
  t.actor = "operator";
  t.now = bench.fx.clock->now();
  need(inventory::transitionCampaign(*bench.fx.db, t));
  CHECK(bench.runUntil(id, {"cancelled"}) == "cancelled");
  CHECK(bench.channelVersion() == kOld);
  for (const auto& n : need(inventory::campaignNodes(*bench.fx.db, id, {}))) {
    if (n.node_id == canary) continue;
    CHECK(n.state != "succeeded");  // never started: the campaign stopped at its canary
    CHECK(bench.booted[n.node_id].empty());
  }
}

TEST_CASE("a node that fails the check on the new image is booted back and counted rolled_back",
          "[rollout][image]") {
  ImageBench bench(1);
  const auto id = bench.createCampaign("ubuntu-24-04-2");
  const auto node_id = bench.node_ids.front();
  bench.fails_on.insert({node_id, kNew});
  bench.start(id);
  CHECK(bench.runUntil(id, {"completed", "paused", "cancelled"}) == "paused");
  const auto node = need(inventory::getCampaignNode(*bench.fx.db, id, node_id));
  CHECK(node.state == "rolled_back");
  CHECK(node.reason == "quick_check_failed");
  CHECK(bench.booted[node_id] == std::vector<std::string>{kNew, kOld});
  CHECK(need(inventory::getNode(*bench.fx.db, node_id)).state == "ready");
  CHECK(bench.channelVersion() == kOld);
}

TEST_CASE("a node that comes up on neither image is quarantined", "[rollout][image]") {
  ImageBench bench(1);
  const auto id = bench.createCampaign("ubuntu-24-04-2");
  const auto node_id = bench.node_ids.front();
  bench.never_up.insert({node_id, kNew});
  bench.never_up.insert({node_id, kOld});
  bench.start(id);
  CHECK(bench.runUntil(id, {"completed", "paused", "cancelled"}) == "paused");
  const auto node = need(inventory::getCampaignNode(*bench.fx.db, id, node_id));
  CHECK(node.state == "rollback_failed");
  CHECK(node.reason == "rollback_failed");
  CHECK(bench.booted[node_id] == std::vector<std::string>{kNew, kOld});
  CHECK(need(inventory::getNode(*bench.fx.db, node_id)).state == "quarantined");
  CHECK(bench.channelVersion() == kOld);
}

// A whole firmware campaign through the engine: the controller run admits nodes wave by wave
// under the caps, each node run flashes its BMC on a simulated DGX H100 over HTTP, and the
// campaign completes; the caps are never exceeded (from the nodes' start and finish times); a
// failing node spends the budget and pauses the campaign naming it. Real PostgreSQL, fake clock.
#include <catch2/catch.hpp>

#include <httplib.h>

#include <map>
#include <thread>

#include "inventory/campaigns.hpp"
#include "inventory/firmware_packages.hpp"
#include "inventory/nodes.hpp"
#include "inventory/workflow_runs.hpp"
#include "rollout/campaign_store.hpp"
#include "rollout/controller_decide.hpp"
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

// Serves /boot/artifacts/<sha256> like the service: the file names the version it installs.
class FirmwareServer {
 public:
  FirmwareServer() {
    server_.Get(R"(/boot/artifacts/([0-9a-f]+))",
                [this](const httplib::Request& req, httplib::Response& res) {
                  std::lock_guard lock(mutex_);
                  auto it = versions_.find(req.matches[1].str());
                  if (it == versions_.end()) {
                    res.status = 404;
                    return;
                  }
                  res.set_content(json{{"version", it->second}}.dump(), "application/octet-stream");
                });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
  }
  ~FirmwareServer() {
    server_.stop();
    thread_.join();
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  std::string add(const std::string& version) {
    std::string sha(64, '0');
    const auto tail = std::to_string(std::hash<std::string>{}(version));
    sha.replace(64 - tail.size(), tail.size(), tail);
    std::lock_guard lock(mutex_);
    versions_[sha] = version;
    return sha;
  }

 private:
  httplib::Server server_;
  std::mutex mutex_;
  std::map<std::string, std::string> versions_;
  int port_ = 0;
  std::thread thread_;
};

struct CampaignBench {
  explicit CampaignBench(int nodes) : fx(options(nodes)) {
    fx.env.settings.public_url = firmware.url();
    for (int i = 1; i <= nodes; ++i) addNode(i);
    registerPackage("23.11.21");
    registerPackage("24.10.1");
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

  void addNode(int number) { node_ids.push_back(fx.addReadyNode(number)); }

  void registerPackage(const std::string& version) {
    inventory::FirmwarePackageSpec p;
    p.name = "dgx-bmc";
    p.version = version;
    p.vendor = "NVIDIA";
    p.models = {"DGXH100"};
    p.component = "bmc";
    p.match_json = R"({"pattern": "HostBMC"})";
    p.sha256 = firmware.add(version);
    p.size = 20;
    p.install_method = "simple_update";
    p.apply = "immediate";
    p.allow_downgrade = true;
    need(inventory::registerFirmwarePackage(*fx.db, p, "test"));
  }

  inventory::Id createCampaign(const json& spec_json) {
    auto spec = need(workflows::campaign::parseCampaignSpec(spec_json));
    std::vector<workflows::campaign::PlanNode> plan_nodes;
    for (auto id : node_ids) {
      workflows::campaign::PlanNode p;
      p.id = id;
      p.site = fx.site;
      p.rack = fx.rack;
      p.model = "DGXH100";
      plan_nodes.push_back(p);
    }
    inventory::NewCampaign c;
    c.name = spec_json.value("name", "c");
    c.kind = "firmware";
    c.spec_json = workflows::campaign::toJson(spec).dump();
    c.baseline_name = "test";
    c.baseline_revision = 1;
    c.created_by = "test";
    c.now = fx.clock->now();
    for (const auto& wave : workflows::campaign::planWaves(spec, plan_nodes)) {
      for (const auto& n : wave.nodes) {
        inventory::PlannedCampaignNode p;
        p.node_id = n.node.id;
        p.wave = n.wave;
        p.position = n.position;
        p.components_json = json::array({{{"component", "bmc"},
                                          {"from", "23.11.21"},
                                          {"to", "24.10.1"},
                                          {"package", "dgx-bmc"}}})
                                .dump();
        p.site = fx.site;
        p.rack = fx.rack;
        p.hardware_model = "DGXH100";
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

  // Runs the engine on this thread until the campaign leaves `running`, or a bound.
  std::string runUntilSettled(inventory::Id id) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    while (std::chrono::steady_clock::now() < deadline) {
      const auto executed = need(engine->runOnce());
      const auto c = need(inventory::getCampaign(*fx.db, id));
      if (c.state != "running") return c.state;
      if (executed == 0) advanceBoth();
    }
    return need(inventory::getCampaign(*fx.db, id)).state;
  }

  // Nothing is due: both clocks move on by one step, in step with each other. The engine's
  // waits are scaled by lifecycle_time_scale, so 20 ms of its clock are 20 s of the
  // simulator's (below the DGX's 30 s session timeout, so no session expires between calls).
  void advanceBoth() {
    const auto step = std::chrono::milliseconds(20);
    fx.clock->advance(step);
    fx.fleet->clock().advance(std::chrono::duration<double>(step).count() *
                              fx.options.lifecycle_time_scale);
  }

  // The most nodes running at once, from their start and finish times.
  int maxInFlight(inventory::Id id) {
    std::vector<std::pair<std::string, int>> edges;
    for (const auto& n : need(inventory::campaignNodes(*fx.db, id, {}))) {
      if (n.started_at.empty()) continue;
      edges.emplace_back(n.started_at, 1);
      if (!n.finished_at.empty()) edges.emplace_back(n.finished_at, -1);
    }
    std::sort(edges.begin(), edges.end(), [](const auto& a, const auto& b) {
      return a.first != b.first ? a.first < b.first : a.second < b.second;  // finish first
    });
    int now = 0, most = 0;
    for (const auto& e : edges) most = std::max(most, now += e.second);
    return most;
  }

  FirmwareServer firmware;
  LifecycleFixture fx;
  std::unique_ptr<workflows::Engine> engine;
  std::vector<inventory::Id> node_ids;
};

json campaignSpec(int per_rack) {
  return {{"name", "bmc-24-10"},
          {"kind", "firmware"},
          {"baseline", {{"name", "test"}}},
          {"selector", {{"all", true}}},
          {"canary", {{"count", 1}}},
          {"waves", json::array({50, "rest"})},
          {"caps", {{"global", 2}, {"per_rack", per_rack}}},
          {"failure_budget", {{"count", 0}}},
          {"quick_check", false}};
}

}  // namespace

TEST_CASE("a campaign updates every node wave by wave within its caps", "[rollout][campaign]") {
  CampaignBench bench(4);
  const auto id = bench.createCampaign(campaignSpec(2));
  bench.start(id);
  CHECK(bench.runUntilSettled(id) == "completed");
  for (const auto& n : need(inventory::campaignNodes(*bench.fx.db, id, {}))) {
    INFO("node " << n.node_id << " " << n.reason);
    CHECK(n.state == "succeeded");
    CHECK(need(inventory::getNode(*bench.fx.db, n.node_id)).state == "ready");
  }
  for (int i = 1; i <= 4; ++i) {
    const json firmware = bench.fx.snapshot(i)["firmware"];
    const auto member = "/redfish/v1/UpdateService/FirmwareInventory/HostBMC_0";
    REQUIRE(firmware.contains(member));
    CHECK(firmware[member]["version"] == "24.10.1");
    CHECK(bench.fx.snapshot(i)["tasks"].size() == 1);  // flashed once
  }
  CHECK(bench.maxInFlight(id) <= 2);
  CHECK(bench.maxInFlight(id) >= 1);
}

TEST_CASE("a per-rack cap of one flashes one node of the rack at a time", "[rollout][campaign]") {
  CampaignBench bench(3);
  const auto id = bench.createCampaign(campaignSpec(1));
  bench.start(id);
  CHECK(bench.runUntilSettled(id) == "completed");
  CHECK(bench.maxInFlight(id) == 1);
}

TEST_CASE("a node whose update fails spends the budget and pauses the campaign naming it",
          "[rollout][campaign]") {
  CampaignBench bench(3);
  const auto id = bench.createCampaign(campaignSpec(1));
  // The canary (plan position 0) is the first node; its update task fails.
  const auto canary = need(inventory::campaignNodes(*bench.fx.db, id, {})).front().node_id;
  const int number =
      static_cast<int>(std::find(bench.node_ids.begin(), bench.node_ids.end(), canary) -
                       bench.node_ids.begin()) +
      1;
  bench.fx.patchFaults(number, {{"firmware_task_fails", true}});
  bench.start(id);
  CHECK(bench.runUntilSettled(id) == "paused");
  const auto c = need(inventory::getCampaign(*bench.fx.db, id));
  CHECK(c.pause_reason.find("failure_budget_spent") == 0);
  CHECK(c.pause_detail_json.find(std::to_string(canary)) != std::string::npos);
  // Its component was touched (the intent recorded): recover takes it back, which finds it
  // still at the old version and flashes nothing.
  const auto node = need(inventory::getCampaignNode(*bench.fx.db, id, canary));
  CHECK(node.state == "rolled_back");
  CHECK(node.reason == "firmware_update_failed");
  CHECK(bench.fx.snapshot(number)["tasks"].size() == 1);
  // Nothing else started.
  for (const auto& n : need(inventory::campaignNodes(*bench.fx.db, id, {}))) {
    if (n.node_id != canary) CHECK(n.state == "pending");
  }
}

namespace {

namespace ro = workflows::rollout;

// One controller's looks, as fast as it can: look, decide, admit what the decision starts; when
// it must wait, a node in flight finishes (the node runs' part); waves advance. After each
// admission it counts what is in flight in the database.
struct Controller {
  std::shared_ptr<const ro::Env> env;
  inventory::Id campaign = 0;
  int admitted = 0, refused = 0, most_in_flight = 0;  // nodes admitted; looks refused
  std::string error;

  void run() {
    ro::ControllerMemory memory;
    memory.gate_done = {0, 1, 2};
    for (int look = 0; look < 400; ++look) {
      auto view = ro::loadCampaign(*env, campaign);
      if (!view) return fail(view.error().message);
      if (view->state != "running") return;
      const auto now = env->life.deps.clock->now();
      const auto d = ro::decide(*view, now, std::chrono::seconds(1), memory);
      using Kind = ro::ControllerDecision::Kind;
      if (d.kind == Kind::kStart) {
        auto a = ro::admitNodes(*env, *view, d.start, false, now);
        if (!a && a.error().code != "campaign_changed") return fail(a.error().message);
        a ? admitted += static_cast<int>(d.start.size()) : ++refused;
        if (a) countInFlight();
      } else if (d.kind == Kind::kAdvance) {
        (void)ro::setCampaignWave(*env, campaign, d.next_wave, std::nullopt, now);
      } else if (d.kind == Kind::kComplete) {
        (void)ro::moveCampaign(*env, campaign, {"running"}, "completed", "done", {}, now);
      } else {
        finishOne(*view, now);
      }
    }
  }
  void finishOne(const ro::CampaignView& view, workflows::TimePoint now) {
    for (const auto& n : view.nodes) {
      if (n.state != "running") continue;
      (void)ro::setCampaignNode(*env, campaign, n.node_id, "succeeded", "", {}, std::nullopt, now);
      return;
    }
  }
  void countInFlight() {
    inventory::CampaignNodeFilter f;
    f.states = {"running"};
    auto running = inventory::campaignNodes(*env->life.deps.db, campaign, f);
    if (!running) return fail(running.error().message);
    most_in_flight = std::max(most_in_flight, static_cast<int>(running->size()));
  }
  void fail(std::string message) { error = std::move(message); }
};

}  // namespace

TEST_CASE("two controllers deciding at once never fill one slot twice", "[rollout][campaign]") {
  // Both look, decide from what they saw and admit, again and again, on separate connections:
  // whatever the interleaving, no node is admitted twice, the rack's cap of 2 holds throughout,
  // and a refused controller looks again until the campaign completes. (That a stale look is
  // refused even for nodes nobody else took: "campaign admission: ... refused on a stale look".)
  CampaignBench bench(8);
  auto spec = campaignSpec(2);
  spec["caps"]["global"] = 8;
  spec["waves"] = json::array({"rest"});
  const auto id = bench.createCampaign(spec);
  bench.start(id);  // the controller run is never executed here: these two stand in for it
  auto env = ro::makeNodeEnv(bench.fx.env.deps, bench.fx.env.settings, {});
  Controller one{env, id, 0, 0, 0, {}}, two{env, id, 0, 0, 0, {}};
  std::thread t1([&] { one.run(); });
  std::thread t2([&] { two.run(); });
  t1.join();
  t2.join();
  CHECK(one.error.empty());
  CHECK(two.error.empty());
  INFO("admitted " << one.admitted << " + " << two.admitted << ", refused " << one.refused << " + "
                   << two.refused);
  CHECK(std::max(one.most_in_flight, two.most_in_flight) <= 2);
  CHECK(one.admitted + two.admitted == 8);  // every node admitted once, by one of them
  CHECK(need(inventory::getCampaign(*bench.fx.db, id)).state == "completed");
  for (const auto& n : need(inventory::campaignNodes(*bench.fx.db, id, {}))) {
    CHECK(n.state == "succeeded");
  }
}

TEST_CASE("a node admitted by a controller that stopped before starting its run starts once",
          "[rollout][campaign]") {
  // The admission is the intent: a controller killed between it and the node's run leaves the
  // node running without a run, and the next look starts it (its slot already counted).
  CampaignBench bench(3);
  const auto id = bench.createCampaign(campaignSpec(1));
  bench.start(id);
  auto env = ro::makeNodeEnv(bench.fx.env.deps, bench.fx.env.settings, {});
  auto view = need(ro::loadCampaign(*env, id));
  const auto canary = view.nodes.front().node_id;
  REQUIRE(need(inventory::getCampaignNode(*bench.fx.db, id, canary)).wave == 0);
  REQUIRE(ro::admitNodes(*env, view, {canary}, false, bench.fx.clock->now()).ok());
  REQUIRE_FALSE(need(inventory::getCampaignNode(*bench.fx.db, id, canary)).run_id);

  CHECK(bench.runUntilSettled(id) == "completed");
  const auto node = need(inventory::getCampaignNode(*bench.fx.db, id, canary));
  CHECK(node.state == "succeeded");
  REQUIRE(node.run_id);
  CHECK(need(inventory::getWorkflowRun(*bench.fx.db, *node.run_id)).kind ==
        workflows::kNodeFirmwareUpdate);
  for (int i = 1; i <= 3; ++i) CHECK(bench.fx.snapshot(i)["tasks"].size() == 1);  // once each
  CHECK(bench.maxInFlight(id) == 1);
}

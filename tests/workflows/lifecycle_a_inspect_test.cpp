// Inspect, handoff and quarantine against the simulator and a real database; the workflow's
// retry budgets; the profile fields the later steps read.
#include <httplib.h>

#include <cctype>
#include <mutex>
#include <thread>

#include <catch2/catch.hpp>

#include "inventory/agent_tasks.hpp"
#include "inventory/bmc_credentials.hpp"
#include "inventory/images.hpp"
#include "inventory/nodes.hpp"
#include "lifecycle/inspect_components.hpp"
#include "workflows/lifecycle_fixture.hpp"

namespace {

using lifecycle_test::drive;
using lifecycle_test::LifecycleFixture;
using workflows::StepContext;
using Kind = workflows::StepOutcome::Kind;
namespace lc = workflows::lifecycle;

#define REQUIRE_OUTCOME(driven, expected_kind)         \
  do {                                                 \
    INFO(lifecycle_test::describe((driven).outcome));  \
    REQUIRE((driven).outcome.kind == (expected_kind)); \
  } while (false)

lifecycle_test::FixtureOptions oneNode() {
  lifecycle_test::FixtureOptions o;
  o.nodes = 1;
  return o;
}

// The node the match step created for this run.
inventory::Id matched(LifecycleFixture& f, StepContext& ctx) {
  auto m = drive(lc::matchStep, f.env, ctx);
  REQUIRE_OUTCOME(m, Kind::kNext);
  return *ctx.run().node_id;
}

inventory::Id claimed(LifecycleFixture& f, StepContext& ctx) {
  matched(f, ctx);
  auto c = drive(lc::claimStep, f.env, ctx);
  REQUIRE_OUTCOME(c, Kind::kNext);
  return *ctx.run().node_id;
}

// A scheduler webhook on a free loopback port that records what it is sent.
class FakeWebhook {
 public:
  explicit FakeWebhook(int status = 200) : status_(status) {
    server_.Post(".*", [this](const httplib::Request& req, httplib::Response& res) {
      std::lock_guard lock(mutex_);
      bodies_.push_back(req.body);
      auth_.push_back(req.get_header_value("Authorization"));
      res.status = status_;
      res.set_content("{}", "application/json");
    });
    server_.Get("/ready",
                [](const httplib::Request&, httplib::Response& res) { res.status = 200; });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    // The socket listens since bind: this request waits in the backlog until the loop serves it.
    httplib::Client probe("127.0.0.1", port_);
    probe.set_read_timeout(std::chrono::seconds(30));
    auto ready = probe.Get("/ready");
    REQUIRE(ready);
  }
  ~FakeWebhook() {
    server_.stop();
    thread_.join();
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/hooks/ready"; }
  std::vector<std::string> bodies() const {
    std::lock_guard lock(mutex_);
    return bodies_;
  }
  std::vector<std::string> auth() const {
    std::lock_guard lock(mutex_);
    return auth_;
  }

 private:
  int status_;
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
  mutable std::mutex mutex_;
  std::vector<std::string> bodies_, auth_;
};

}  // namespace

TEST_CASE("Inspect records the GPUs with their serials and the host MACs", "[lifecycle][inspect]") {
  LifecycleFixture f;
  auto ctx = f.context(1);
  auto node = claimed(f, ctx);
  auto i = drive(lc::inspectStep, f.env, ctx);
  REQUIRE_OUTCOME(i, Kind::kNext);
  CHECK(i.outcome.step == "configure");
  CHECK(ctx.data()["profile"] == f.profile_name);
  CHECK(ctx.data()["system_path"].is_string());

  auto detail = inventory::getNodeDetail(*f.db, node);
  REQUIRE(detail.ok());
  CHECK(detail->node.state == "inspected");
  std::vector<std::string> gpu_serials;
  for (const auto& c : detail->components) {
    if (c.kind == "gpu") gpu_serials.push_back(c.serial);
  }
  auto expected = f.bmc(1).identity.gpuSerials;
  std::sort(expected.begin(), expected.end());
  std::sort(gpu_serials.begin(), gpu_serials.end());
  CHECK(gpu_serials == expected);
  auto macs = inventory::listBootMacs(*f.db, node);
  REQUIRE(macs.ok());
  REQUIRE_FALSE(f.bmc(1).identity.hostMacs.empty());
  for (auto mac : f.bmc(1).identity.hostMacs) {
    for (auto& c : mac) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    CHECK(std::find(macs->begin(), macs->end(), mac) != macs->end());
  }
  auto again = drive(lc::inspectStep, f.env, ctx);  // a second crawl changes nothing
  REQUIRE_OUTCOME(again, Kind::kNext);
  CHECK(f.scalar("SELECT count(*) FROM component_placements WHERE removed_at IS NOT NULL") == "0");
}

TEST_CASE("Inspect fails naming the GPU whose PCIe link trained narrow", "[lifecycle][inspect]") {
  LifecycleFixture f;
  auto ctx = f.context(1);
  claimed(f, ctx);
  f.patchFaults(1, {{"pcie_down_trained", true}});
  auto i = drive(lc::inspectStep, f.env, ctx);
  REQUIRE_OUTCOME(i, Kind::kFail);
  CHECK(i.outcome.reason == "pcie_link_degraded");
  const auto serial = i.outcome.detail.value("component_serial", "");
  const auto& gpus = f.bmc(1).identity.gpuSerials;
  CHECK(std::find(gpus.begin(), gpus.end(), serial) != gpus.end());
  CHECK(i.outcome.message.find(serial) != std::string::npos);
  CHECK(i.outcome.detail["current_width"] == 8);
  CHECK(i.outcome.detail["max_width"] == 16);
}

TEST_CASE("Inspect fails when fewer GPUs answer than the order promised", "[lifecycle][inspect]") {
  LifecycleFixture f;
  auto ctx = f.context(1);
  claimed(f, ctx);
  ctx.data()["expected"]["gpu_count"] = 16;
  auto i = drive(lc::inspectStep, f.env, ctx);
  REQUIRE_OUTCOME(i, Kind::kFail);
  CHECK(i.outcome.reason == "gpu_count_mismatch");
  CHECK(i.outcome.detail["expected"] == 16);
  CHECK(i.outcome.detail["found"] == 8);
}

TEST_CASE("A vanished BMC is retried and every step has a bounded budget", "[lifecycle][retry]") {
  LifecycleFixture f;
  auto ctx = f.context(1);
  claimed(f, ctx);
  f.patchFaults(1, {{"reset_rate", 1.0}});
  auto i = drive(lc::inspectStep, f.env, ctx);
  REQUIRE_OUTCOME(i, Kind::kRetry);
  CHECK(i.outcome.reason == "bmc_unreachable");
  auto def = workflows::nodeLifecycleWorkflow(f.env.deps, f.env.settings);
  CHECK(def.failure_step == "quarantine");
  CHECK(def.first_step == "match");
  REQUIRE(def.steps.size() == 10);
  for (const auto& step : def.steps) {
    INFO(step.name);
    CHECK(step.max_attempts >= 2);
    CHECK(step.max_attempts <= 10);
  }
}

TEST_CASE("Inspect rides out a storm of 503 answers from the BMC", "[lifecycle][retry]") {
  LifecycleFixture f;
  auto ctx = f.context(1);
  auto node = claimed(f, ctx);
  // One answer in ten is 503 with Retry-After: the crawl still completes in this try.
  f.patchFaults(1, {{"http_5xx_rate", 0.1}});
  const auto before = f.fleet->stats().faults.http5xx;
  auto i = drive(lc::inspectStep, f.env, ctx);
  REQUIRE_OUTCOME(i, Kind::kNext);
  CHECK(f.fleet->stats().faults.http5xx - before >= 5);
  auto detail = inventory::getNodeDetail(*f.db, node);
  REQUIRE(detail.ok());
  CHECK(detail->node.state == "inspected");
  CHECK(std::count_if(detail->components.begin(), detail->components.end(),
                      [](const auto& c) { return c.kind == "gpu"; }) == 8);
}

TEST_CASE("Handoff posts the ready node in each scheduler format", "[lifecycle][handoff]") {
  LifecycleFixture f;
  auto ctx = f.context(1);
  auto node = claimed(f, ctx);
  auto inspected = drive(lc::inspectStep, f.env, ctx);
  REQUIRE_OUTCOME(inspected, Kind::kNext);
  FakeWebhook hook;
  f.env.settings.handoff_url = hook.url();
  f.env.settings.handoff_token = "hook-token-1";
  for (const std::string format : {"generic", "slurm", "kubernetes"}) {
    f.env.settings.handoff_format = format;
    auto h = drive(lc::handoffStep, f.env, ctx);
    REQUIRE_OUTCOME(h, Kind::kSucceed);
  }
  auto bodies = hook.bodies();
  REQUIRE(bodies.size() == 3);
  auto generic = nlohmann::json::parse(bodies[0]);
  CHECK(generic["id"] == node);
  CHECK(generic["gpus"].size() == 8);
  CHECK(generic["rack"] == "r01");
  auto slurm = nlohmann::json::parse(bodies[1]);
  CHECK(slurm["state"] == "resume");
  REQUIRE(slurm["nodes"].size() == 1);
  CHECK(slurm["nodes"][0] == generic["hostname"]);
  auto kube = nlohmann::json::parse(bodies[2]);
  CHECK(kube["kind"] == "Node");
  CHECK(kube["metadata"]["labels"]["nvidia.com/gpu.count"] == "8");
  CHECK(kube["metadata"]["labels"]["provisioner/rack"] == "r01");
  for (const auto& a : hook.auth()) CHECK(a == "Bearer hook-token-1");
  CHECK(inventory::getNode(*f.db, node)->state == "ready");
}

TEST_CASE("Handoff retries with the HTTP status when the webhook refuses", "[lifecycle][handoff]") {
  LifecycleFixture f;
  auto ctx = f.context(1);
  matched(f, ctx);
  FakeWebhook hook(503);
  f.env.settings.handoff_url = hook.url();
  auto h = drive(lc::handoffStep, f.env, ctx);
  REQUIRE_OUTCOME(h, Kind::kRetry);
  CHECK(h.outcome.message.find("503") != std::string::npos);
  CHECK(hook.bodies().size() == 1);
}

TEST_CASE("A hand-off that never got through leaves the node ready", "[lifecycle][quarantine]") {
  LifecycleFixture f;
  auto ctx = f.context(1);
  const auto node = matched(f, ctx);
  REQUIRE(inventory::setNodeState(*f.db, node, "ready", "workflow", "").ok());
  ctx.data()["failure"] = {{"step", "handoff"},
                           {"reason", "retry_budget_exhausted"},
                           {"message", "step handoff failed 10 tries; last: handoff_refused"}};
  auto q = drive(lc::quarantineStep, f.env, ctx);
  REQUIRE_OUTCOME(q, Kind::kFail);
  CHECK(q.outcome.reason == "retry_budget_exhausted");
  auto n = inventory::getNode(*f.db, node);
  REQUIRE(n.ok());
  CHECK(n->state == "ready");
  bool told = false;
  for (const auto& e : q.events) told = told || e.kind == "handoff_failed";
  CHECK(told);
}

TEST_CASE("Quarantine stores the reason and names the failing part", "[lifecycle][quarantine]") {
  LifecycleFixture f;
  auto ctx = f.context(1);
  const auto node = matched(f, ctx);
  ctx.data()["failure"] = {{"step", "inspect"},
                           {"reason", "pcie_link_degraded"},
                           {"message", "GPU 1654922006251 links at x8 of x16"},
                           {"detail",
                            {{"component_serial", "1654922006251"},
                             {"measurement", "pcie_link_width"},
                             {"current_width", 8}}}};
  auto q = drive(lc::quarantineStep, f.env, ctx);
  REQUIRE_OUTCOME(q, Kind::kFail);
  CHECK(q.outcome.reason == "pcie_link_degraded");
  auto n = inventory::getNode(*f.db, node);
  REQUIRE(n.ok());
  CHECK(n->state == "quarantined");
  CHECK(n->state_reason == "pcie_link_degraded: GPU 1654922006251 links at x8 of x16");
  CHECK(f.scalar("SELECT state_detail->>'component_serial' FROM nodes WHERE id = " +
                 std::to_string(node)) == "1654922006251");
  bool named = false;
  for (const auto& e : q.events) {
    named =
        named || (e.kind == "quarantined" && e.message.find("1654922006251") != std::string::npos &&
                  e.message.find("pcie_link_width") != std::string::npos);
  }
  CHECK(named);
}

TEST_CASE("Hardware profiles keep BIOS settings minimum firmware and GPU model",
          "[lifecycle][profile]") {
  LifecycleFixture f(oneNode());
  inventory::HardwareProfile p;
  p.name = "hgx";
  p.model = "HGX B200";
  p.channel = "stable";
  p.bios_settings_json = R"({"SriovEnable": "Enabled"})";
  p.min_firmware_json = R"([{"match": "BMC", "version": "1.2.3", "image_uri": "http://x/b"}])";
  p.gpu_model = "B200";
  REQUIRE(inventory::upsertHardwareProfile(*f.db, p, "test").ok());
  auto read = inventory::getHardwareProfile(*f.db, "hgx");
  REQUIRE(read.ok());
  CHECK(nlohmann::json::parse(read->bios_settings_json)["SriovEnable"] == "Enabled");
  CHECK(nlohmann::json::parse(read->min_firmware_json)[0]["version"] == "1.2.3");
  CHECK(read->gpu_model == "B200");
  p.bios_settings_json = "{not json";
  auto bad = inventory::upsertHardwareProfile(*f.db, p, "test");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().field == "bios_settings");
}

TEST_CASE("A BMC password is committed only when a rotation is pending", "[lifecycle][claim]") {
  LifecycleFixture f(oneNode());
  auto ctx = f.context(1);
  const auto node = matched(f, ctx);
  auto none = inventory::commitPendingBmcPassword(*f.db, node);
  REQUIRE_FALSE(none.ok());
  CHECK(none.error().code == "bmc_credentials_not_found");
  REQUIRE(inventory::recordPendingBmcPassword(*f.db, *f.secrets, node, "root", "old-A1", "new-B2")
              .ok());
  CHECK(f.scalar("SELECT count(*) FROM node_bmc_credentials WHERE password_sealed LIKE '%old%'"
                 " OR pending_password_sealed LIKE '%new%'") == "0");
  REQUIRE(inventory::commitPendingBmcPassword(*f.db, node).ok());
  auto creds = inventory::bmcCredentials(*f.db, *f.secrets, node);
  REQUIRE(creds.ok());
  CHECK((*creds)->password == "new-B2");
  auto twice = inventory::commitPendingBmcPassword(*f.db, node);
  REQUIRE_FALSE(twice.ok());
  CHECK(twice.error().code == "no_pending_bmc_password");
}

TEST_CASE("A crawl that read no host MAC because a read failed is not an inventory",
          "[lifecycle][inspect]") {
  // The chaos harness found a node recorded with "0 host MACs" after a malformed answer on its
  // Ethernet interfaces: no boot script ever recognised it, and it was quarantined two boots
  // later. The decision: retry while the MACs' sources were skipped and none was read.
  redfish::Inventory inv;
  inv.systems.push_back({});
  inv.warnings = {"skipped GET /redfish/v1/Systems/DGX/EthernetInterfaces: malformed JSON",
                  "skipped GET /redfish/v1/Systems/DGX/Memory/DIMM3: HTTP 404"};
  auto missed = lc::unreadHostMacs(inv);
  REQUIRE(missed.size() == 1);
  CHECK(missed.front().find("EthernetInterfaces") != std::string::npos);
  // A MAC read: the crawl is good enough to boot by.
  inv.systems.front().ethernetInterfaces.push_back({});
  inv.systems.front().ethernetInterfaces.back().mac = "5C:9A:E3:5D:BC:F6";
  CHECK(lc::unreadHostMacs(inv).empty());
  // No MAC and nothing skipped where MACs come from: nothing to retry for.
  redfish::Inventory bare;
  bare.systems.push_back({});
  bare.warnings = {"skipped GET /redfish/v1/Systems/DGX/Memory/DIMM3: HTTP 404"};
  CHECK(lc::unreadHostMacs(bare).empty());
}

// A node's firmware update against a simulated DGX H100 BMC over HTTP and a real PostgreSQL:
// flash with the intent first, follow the task, verify by re-reading FirmwareInventory, resume
// after a crash without flashing twice, catch a "success" that changed nothing, roll back, and
// drain through a real scheduler webhook. Steps run one at a time, as the engine would run them.
#include <catch2/catch.hpp>

#include <httplib.h>

#include <atomic>
#include <thread>

#include "lifecycle_b_bench.hpp"
#include "rollout/node_steps.hpp"

namespace {

using lifecycle_b::Bench;
using lifecycle_b::BenchOptions;
using nlohmann::json;
using workflows::StepContext;
using workflows::StepOutcome;
using Kind = StepOutcome::Kind;
using std::chrono::minutes;
using std::chrono::seconds;
namespace lc = workflows::lifecycle;
namespace ro = workflows::rollout;

const char* kBmcMember = "/redfish/v1/UpdateService/FirmwareInventory/HostBMC_0";

std::string describe(const StepOutcome& o) {
  return "kind " + std::to_string(static_cast<int>(o.kind)) + " step " + o.step + " reason " +
         o.reason + " waiting_for " + o.waiting_for + ": " + o.message;
}

// A package file the simulator downloads: it installs the version the file names. The first
// `failures` downloads fail with HTTP 500 (the replica serving them killed mid-download).
class PackageServer {
 public:
  explicit PackageServer(int failures = 0) {
    server_.Get(R"(/fw/([^/]+))", [this, failures](const httplib::Request& req,
                                                   httplib::Response& res) {
      if (gets_++ < failures) {
        res.status = 500;
        return;
      }
      res.set_content(json{{"version", req.matches[1].str()}}.dump(), "application/octet-stream");
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
  }
  ~PackageServer() {
    server_.stop();
    thread_.join();
  }
  std::string uri(const std::string& version) const {
    return "http://127.0.0.1:" + std::to_string(port_) + "/fw/" + version;
  }
  int gets() const { return gets_; }

 private:
  std::atomic<int> gets_{0};
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
};

json bmcComponent(const PackageServer& packages, const std::string& to, bool with_rollback = true) {
  json c = {{"component", "bmc"}, {"rule", {{"pattern", "HostBMC"}}}, {"from", "23.11.21"},
            {"to", to},           {"image_uri", packages.uri(to)},    {"apply", "immediate"},
            {"force", false}};
  c["rollback"] = with_rollback
                      ? json{{"version", "23.11.21"}, {"image_uri", packages.uri("23.11.21")}}
                      : json(nullptr);
  return c;
}

using RolloutStep = workflows::StepOutcome (*)(const ro::Env&, StepContext&);

struct Rollout {
  explicit Rollout(Bench& shared) : bench(shared) {
    env.life = bench.env();
    env.life.settings.timings.time_scale =
        1;  // deadlines in the simulated seconds drive() advances
  }
  StepOutcome run(const std::string& name,
                  workflows::StepOutcome (*step)(const ro::Env&, StepContext&)) {
    return bench.run(name,
                     [this, step](const lc::Env&, StepContext& ctx) { return step(env, ctx); });
  }
  StepOutcome runStalled(const std::string& name, RolloutStep step, workflows::Duration stall) {
    return bench.runStalled(
        name, [this, step](const lc::Env&, StepContext& ctx) { return step(env, ctx); }, stall);
  }
  // The replica dies after the step returned (runAndDie) or inside its nth recordIntent().
  int runAndDie(const std::string& name, RolloutStep step, int at_intent = 0) {
    auto wrapped = [this, step](const lc::Env&, StepContext& ctx) { return step(env, ctx); };
    return at_intent == 0 ? bench.runAndDie(name, wrapped)
                          : bench.runAndDieAtIntent(name, wrapped, at_intent);
  }
  // Runs `step` until it stops waiting, moving both clocks on between calls.
  StepOutcome drive(const std::string& name,
                    workflows::StepOutcome (*step)(const ro::Env&, StepContext&),
                    int max_calls = 60) {
    StepOutcome outcome;
    for (int i = 0; i < max_calls; ++i) {
      outcome = run(name, step);
      if (outcome.kind != Kind::kWait) return outcome;
      bench.advance(seconds(10));
    }
    return outcome;
  }
  // The simulator lists the members an update changed; the others report the recording's.
  std::string bmcVersion() const {
    const json firmware = bench.snapshot()["firmware"];
    if (!firmware.contains(kBmcMember)) return "23.11.21";
    return firmware[kBmcMember].value("version", "");
  }

  Bench& bench;
  ro::Env env;
};

BenchOptions bmcNode() {
  BenchOptions options;
  options.system_path = "/redfish/v1/Systems/DGX";
  return options;
}

}  // namespace

TEST_CASE("flash records the intent, updates, follows the task and verifies the new version",
          "[rollout]") {
  PackageServer packages;
  Bench bench(bmcNode());
  Rollout r(bench);
  bench.data()["components"] = json::array({bmcComponent(packages, "24.10.1")});

  auto first = r.run("flash", ro::flashStep);
  INFO(describe(first));
  REQUIRE(first.kind == Kind::kWait);
  CHECK(first.waiting_for == "firmware_task");
  CHECK(bench.data()["flash"]["current"]["targets"] == json::array({kBmcMember}));
  CHECK(bench.data()["flash"]["current"].contains("intent_at"));
  CHECK(bench.requestCount("POST", "SimpleUpdate") == 1);

  auto done = r.drive("flash", ro::flashStep);
  INFO(describe(done));
  INFO(bench.snapshot().dump());
  INFO(bench.data().dump());
  REQUIRE(done.kind == Kind::kNext);
  CHECK(done.step == "quick_check");
  CHECK(r.bmcVersion() == "24.10.1");
  CHECK(bench.requestCount("POST", "SimpleUpdate") == 1);
  CHECK(bench.data()["flash"]["done"][0]["flashed"] == true);
}

TEST_CASE("an update whose BMC could not fetch the image is started again and flashed once",
          "[rollout]") {
  PackageServer packages(1);
  Bench bench(bmcNode());
  Rollout r(bench);
  bench.data()["components"] = json::array({bmcComponent(packages, "24.10.1")});
  auto done = r.drive("flash", ro::flashStep);
  INFO(describe(done));
  REQUIRE(done.kind == Kind::kNext);
  CHECK(r.bmcVersion() == "24.10.1");
  CHECK(bench.requestCount("POST", "SimpleUpdate") == 2);
  CHECK(packages.gets() == 2);
  CHECK(std::count(bench.events().begin(), bench.events().end(), "firmware_transfer_retried") == 1);
}

TEST_CASE("an update the BMC accepted after a slow call gets its whole time-out from then",
          "[rollout]") {
  // Found by the chaos harness: a BMC call hung (an injected time-out) before the update was
  // accepted, and the task's time-out, counted from the step's start, had passed by the first
  // poll: firmware_update_timeout 27 ms after the update started, and a needless rollback.
  PackageServer packages;
  Bench bench(bmcNode());
  Rollout r(bench);
  bench.patchFaults({{"hung_tasks", true}});  // the update never ends by itself
  bench.data()["components"] = json::array({bmcComponent(packages, "24.10.1")});
  const auto stall = std::chrono::hours(2);  // more than the 1 h firmware time-out
  auto first = r.runStalled("flash", ro::flashStep, stall);
  INFO(describe(first));
  REQUIRE(first.kind == Kind::kWait);
  REQUIRE(bench.requestCount("POST", "SimpleUpdate") == 1);
  auto next = r.run("flash", ro::flashStep);
  INFO(describe(next));
  CHECK(next.kind == Kind::kWait);  // within its hour
  CHECK(next.waiting_for == "firmware_task");
  bench.advance(minutes(61));
  auto late = r.run("flash", ro::flashStep);
  CHECK(late.kind == Kind::kFail);  // and no longer than its hour
  CHECK(late.reason == "firmware_update_timeout");
  CHECK(bench.requestCount("POST", "SimpleUpdate") == 1);
}

TEST_CASE("HGX GPU firmware is applied by an AC power cycle of the system's own chassis",
          "[rollout]") {
  PackageServer packages;
  Bench bench(bmcNode());
  Rollout r(bench);
  // What inspect stored: the first chassis of the inventory, which has no Chassis.Reset.
  bench.data()["chassis_path"] = "/redfish/v1/Chassis/CPUBaseboard";
  json gpu = {{"component", "gpu"},
              {"rule", {{"pattern", "HGX_FW_GPU_SXM"}}},
              {"from", "96.00.89.00.01"},
              {"to", "96.00.9A.00.01"},
              {"image_uri", packages.uri("96.00.9A.00.01")},
              {"apply", "ac_power_cycle"},
              {"force", false},
              {"rollback", nullptr}};
  bench.data()["components"] = json::array({gpu});
  auto done = r.drive("flash", ro::flashStep);
  INFO(describe(done));
  REQUIRE(done.kind == Kind::kNext);
  CHECK(bench.data()["flash"]["done"][0]["flashed"] == true);
  const json firmware = bench.snapshot()["firmware"];
  const auto member = "/redfish/v1/UpdateService/FirmwareInventory/HGX_FW_GPU_SXM_1";
  REQUIRE(firmware.contains(member));
  CHECK(firmware[member]["version"] == "96.00.9A.00.01");
  CHECK(bench.requestCount("POST", "/redfish/v1/Chassis/DGX/Actions/Chassis.Reset") == 2);
  CHECK(bench.requestCount("POST", "CPUBaseboard") == 0);
}

TEST_CASE("a run resumed after a crash adopts the running update instead of flashing again",
          "[rollout]") {
  PackageServer packages;
  Bench bench(bmcNode());
  Rollout r(bench);
  bench.data()["components"] = json::array({bmcComponent(packages, "24.10.1")});
  REQUIRE(r.run("flash", ro::flashStep).kind == Kind::kWait);
  REQUIRE(bench.requestCount("POST", "SimpleUpdate") == 1);
  // The replica died after the BMC took the update but before its outcome was written: what
  // survives is the intent recordIntent() wrote, not the task it learnt.
  bench.data()["flash"]["current"].erase("task");
  bench.data()["flash"]["current"].erase("started_at");

  auto resumed = r.run("flash", ro::flashStep);
  INFO(describe(resumed));
  CHECK(resumed.kind == Kind::kWait);
  CHECK(bench.requestCount("POST", "SimpleUpdate") == 1);
  auto done = r.drive("flash", ro::flashStep);
  REQUIRE(done.kind == Kind::kNext);
  CHECK(bench.requestCount("POST", "SimpleUpdate") == 1);
  CHECK(r.bmcVersion() == "24.10.1");
}

namespace {

const char* kBiosMember = "/redfish/v1/UpdateService/FirmwareInventory/HostBIOS_0";

// The host BIOS (the DGX's HostBIOS_0, 01.01.03), applied when the host resets.
json biosComponent(const PackageServer& packages) {
  return {{"component", "bios"},
          {"rule", {{"pattern", "HostBIOS"}}},
          {"from", "01.01.03"},
          {"to", "01.02.00"},
          {"image_uri", packages.uri("01.02.00")},
          {"apply", "on_reset"},
          {"force", false},
          {"rollback", nullptr}};
}

// A node whose BIOS update task has finished: the next execution of flash resets the host to
// apply it.
struct BiosApplyNext {
  BiosApplyNext() {
    bench.data()["components"] = json::array({biosComponent(packages)});
    for (int i = 0; i < 60; ++i) {
      auto outcome = r.run("flash", ro::flashStep);
      INFO(describe(outcome));
      REQUIRE(outcome.kind == Kind::kWait);
      REQUIRE(outcome.waiting_for == "firmware_task");
      bench.advance(seconds(10));
      const json firmware = bench.snapshot()["firmware"];
      if (firmware.contains(kBiosMember) &&
          firmware[kBiosMember].value("awaiting", "") == "host_reset") {
        return;
      }
    }
    FAIL("the BIOS update task never finished");
  }

  PackageServer packages;
  Bench bench{bmcNode()};
  Rollout r{bench};
};

std::size_t resets(const Bench& bench) {
  return bench.requestCount("POST", "ComputerSystem.Reset");
}

}  // namespace

TEST_CASE("flash killed after the reset that applies the firmware does not reset again",
          "[rollout][kill]") {
  BiosApplyNext f;
  Bench& bench = f.bench;
  REQUIRE(resets(bench) == 0);

  Rollout& r = f.r;
  CHECK(r.runAndDie("flash", ro::flashStep) == 1);  // the reset's intent
  CHECK(resets(bench) == 1);
  CHECK(bench.data()["flash"]["current"].contains("reset_intent_at"));
  CHECK_FALSE(bench.data()["flash"]["current"].contains("applied_at"));

  auto done = r.drive("flash", ro::flashStep);
  INFO(describe(done));
  REQUIRE(done.kind == Kind::kNext);
  CHECK(resets(bench) == 1);
  CHECK(bench.requestCount("POST", "SimpleUpdate") == 1);
  CHECK(bench.snapshot()["firmware"][kBiosMember]["version"] == "01.02.00");
}

TEST_CASE("flash killed between its reset intent and the reset never resets blind",
          "[rollout][kill]") {
  // Firmware applied at boot may be flashing during POST, where a second reset could brick the
  // part: the reset counts as sent, and an update it never applied ends for an operator.
  BiosApplyNext f;
  Bench& bench = f.bench;
  Rollout& r = f.r;
  r.runAndDie("flash", ro::flashStep, 1);
  CHECK(resets(bench) == 0);

  auto ended = r.drive("flash", ro::flashStep, 200);
  INFO(describe(ended));
  REQUIRE(ended.kind == Kind::kFail);
  CHECK(ended.reason == "version_unchanged");
  CHECK(resets(bench) == 0);
}

TEST_CASE("members already at the target are verified, never flashed", "[rollout]") {
  PackageServer packages;
  Bench bench(bmcNode());
  Rollout r(bench);
  bench.data()["components"] = json::array({bmcComponent(packages, "23.11.21")});
  auto done = r.run("flash", ro::flashStep);
  INFO(describe(done));
  REQUIRE(done.kind == Kind::kNext);
  CHECK(bench.requestCount("POST", "SimpleUpdate") == 0);
  CHECK(bench.data()["flash"]["done"][0]["flashed"] == false);
}

TEST_CASE("a package is never flashed over a version below the lowest it installs over",
          "[rollout]") {
  PackageServer packages;
  Bench bench(bmcNode());
  Rollout r(bench);
  json c = bmcComponent(packages, "24.10.1");
  c["min_from"] = "24.01.5";  // the node runs 23.11.21
  bench.data()["components"] = json::array({c});
  auto failed = r.run("flash", ro::flashStep);
  INFO(describe(failed));
  REQUIRE(failed.kind == Kind::kFail);
  CHECK(failed.reason == "below_min_from_version");
  CHECK(failed.message.find("23.11.21") != std::string::npos);
  CHECK(failed.message.find("24.01.5") != std::string::npos);
  CHECK(bench.requestCount("POST", "SimpleUpdate") == 0);
  CHECK(r.bmcVersion() == "23.11.21");
}

TEST_CASE("a rule that matches no member fails naming the rule", "[rollout]") {
  PackageServer packages;
  Bench bench(bmcNode());
  Rollout r(bench);
  json c = bmcComponent(packages, "24.10.1");
  c["rule"] = {{"pattern", "NoSuchThing"}};
  bench.data()["components"] = json::array({c});
  auto failed = r.run("flash", ro::flashStep);
  REQUIRE(failed.kind == Kind::kFail);
  CHECK(failed.reason == "component_not_found");
  CHECK(failed.message.find("NoSuchThing") != std::string::npos);
}

TEST_CASE("recover rolls a flashed component back to its previous version", "[rollout]") {
  PackageServer packages;
  Bench bench(bmcNode());
  Rollout r(bench);
  bench.data()["components"] = json::array({bmcComponent(packages, "24.10.1")});
  REQUIRE(r.drive("flash", ro::flashStep).kind == Kind::kNext);
  REQUIRE(r.bmcVersion() == "24.10.1");
  // The quick check failed: the engine hands recover the failure.
  bench.data()["failure"] = {{"step", "quick_check"},
                             {"reason", "quick_check_failed"},
                             {"message", "GPU 1 gemm_bf16 600 TFLOP/s (below_threshold)"}};
  auto planned = r.run("recover", ro::recoverStep);
  INFO(describe(planned));
  REQUIRE(planned.kind == Kind::kNext);
  CHECK(planned.step == "rollback_flash");
  auto back = r.drive("rollback_flash", ro::rollbackFlashStep);
  INFO(describe(back));
  REQUIRE(back.kind == Kind::kNext);
  CHECK(back.step == "undrain");
  CHECK(r.bmcVersion() == "23.11.21");
  CHECK(bench.data()["result"]["state"] == "rolled_back");
  CHECK(bench.data()["result"]["reason"] == "quick_check_failed");
  CHECK(bench.requestCount("POST", "SimpleUpdate") == 2);
}

TEST_CASE("recover without a package of the previous version quarantines the node", "[rollout]") {
  PackageServer packages;
  Bench bench(bmcNode());
  Rollout r(bench);
  bench.data()["components"] = json::array({bmcComponent(packages, "24.10.1", false)});
  auto flashed = r.drive("flash", ro::flashStep);
  INFO(describe(flashed));
  REQUIRE(flashed.kind == Kind::kNext);
  bench.data()["failure"] = {
      {"step", "quick_check"}, {"reason", "quick_check_failed"}, {"message", "slow GPUs"}};
  bench.data()["campaign_id"] = 0;  // no campaign row: the report fails, the step retries
  auto outcome = r.run("recover", ro::recoverStep);
  INFO(describe(outcome));
  CHECK(outcome.kind == Kind::kRetry);
  CHECK(bench.nodeState() == "quarantined");
}

TEST_CASE("drain waits until the scheduler says the node is idle", "[rollout]") {
  std::atomic<int> asks{0};
  httplib::Server scheduler;
  json last;
  std::mutex mutex;
  scheduler.Post("/drain", [&](const httplib::Request& req, httplib::Response& res) {
    {
      std::lock_guard lock(mutex);
      last = json::parse(req.body, nullptr, false);
    }
    const int n = ++asks;
    res.set_content(json{{"idle", n >= 3}}.dump(), "application/json");
  });
  const int port = scheduler.bind_to_any_port("127.0.0.1");
  std::thread serving([&] { scheduler.listen_after_bind(); });

  Bench bench(bmcNode());
  Rollout r(bench);
  r.env.settings.drain.url = "http://127.0.0.1:" + std::to_string(port) + "/drain";
  bench.data()["campaign_id"] = 7;
  auto waiting = r.run("drain", ro::drainStep);
  CHECK(waiting.kind == Kind::kWait);
  CHECK(waiting.waiting_for == "scheduler_idle");
  CHECK(bench.nodeState() == "firmware");
  auto drained = r.drive("drain", ro::drainStep);
  INFO(describe(drained));
  CHECK(drained.kind == Kind::kNext);
  CHECK(drained.step == "flash");
  CHECK(asks == 3);
  {
    std::lock_guard lock(mutex);
    CHECK(last["action"] == "drain");
    CHECK(last["reason"] == "campaign 7: firmware update");
  }
  scheduler.stop();
  serving.join();
}

TEST_CASE("a drain the scheduler never finishes times out having changed nothing", "[rollout]") {
  httplib::Server scheduler;
  scheduler.Post("/drain", [](const httplib::Request&, httplib::Response& res) {
    res.set_content(R"({"idle": false})", "application/json");
  });
  const int port = scheduler.bind_to_any_port("127.0.0.1");
  std::thread serving([&] { scheduler.listen_after_bind(); });
  Bench bench(bmcNode());
  Rollout r(bench);
  r.env.settings.drain.url = "http://127.0.0.1:" + std::to_string(port) + "/drain";
  r.env.settings.timings.drain_timeout = minutes(10);
  REQUIRE(r.run("drain", ro::drainStep).kind == Kind::kWait);
  bench.advance(minutes(9));
  REQUIRE(r.run("drain", ro::drainStep).kind == Kind::kWait);
  bench.advance(minutes(1));
  auto timed_out = r.run("drain", ro::drainStep);
  CHECK(timed_out.kind == Kind::kFail);
  CHECK(timed_out.reason == "drain_timeout");
  CHECK(bench.requestCount("POST", "SimpleUpdate") == 0);
  scheduler.stop();
  serving.join();
}

// The agent's resident monitor against the real service over HTTP (docs/health.md, "The resident
// monitor"): the burn-in enrolls the credential, the monitor reports every interval, keeps its
// batches on disk through an outage and a restart of its own and sends them in order (none lost,
// none doubled), rotates when an operator asks, and keeps batches while its credential is
// refused.
#include <sys/stat.h>
#include <filesystem>
#include <sstream>

#include <catch2/catch.hpp>

#include "agent/agent_main.hpp"
#include "agent/monitor.hpp"
#include "agent/service_client.hpp"
#include "agent/sim_backend.hpp"
#include "boot_test_support.hpp"
#include "flaky_proxy.hpp"
#include "integration/inventory_agent_test_support.hpp"
#include "inventory/gpu_health.hpp"
#include "inventory/health/time.hpp"
#include "inventory/resident_tasks.hpp"
#include "inventory/workflow_runs.hpp"

using nlohmann::json;
using testing::HttpResult;
using testing::ServiceFixture;
namespace fs = std::filesystem;

namespace {

struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() /
           ("monitor-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter()++));
    fs::remove_all(path);
  }
  ~TempDir() { fs::remove_all(path); }
  static int& counter() {
    static int n = 0;
    return n;
  }
};

// A clock the monitor's waits move: every interval is 30 s of test time and no real time.
struct FakeTime {
  std::chrono::system_clock::time_point t =
      std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now()) -
      std::chrono::minutes{20};
};

agent::ServiceClient clientTo(int port, long long node) {
  agent::ServiceClientOptions options;
  options.base_url = "http://127.0.0.1:" + std::to_string(port);
  options.node_id = std::to_string(node);
  options.jitter_seed = 7;
  options.sleeper = [](std::chrono::milliseconds) {};
  auto client = agent::ServiceClient::create(std::move(options));
  REQUIRE(client);
  return std::move(client).value();
}

agent::MonitorOptions monitorOptions(const fs::path& state_dir, FakeTime& time, int intervals) {
  agent::MonitorOptions options;
  options.state_dir = state_dir;
  options.intervals = intervals;
  options.now = [&time] { return time.t; };
  options.sleeper = [&time](std::chrono::milliseconds d) { time.t += d; };
  return options;
}

std::unique_ptr<agent::SimulatedGpuBackend> simGpus(const std::string& host) {
  agent::SimConfig config;
  config.host_serial = host;
  config.gpus = 2;
  auto sim = agent::SimulatedGpuBackend::create(std::move(config));
  REQUIRE(sim);
  return std::move(sim).value();
}

agent::MonitorTotals monitor(const agent::MonitorOptions& options, agent::GpuBackend& gpus,
                             agent::ServiceClient& client, std::string& log) {
  std::ostringstream out;
  auto totals = agent::runMonitor(options, gpus, client, out);
  log += out.str();
  REQUIRE(totals);
  return *totals;
}

std::size_t queued(const fs::path& state_dir) {
  std::size_t n = 0;
  for (const auto& e : fs::directory_iterator(state_dir / "spool")) {
    n += e.path().extension() == ".json" ? 1 : 0;
  }
  return n;
}

// The GPU's raw readings, oldest first.
json readingsOf(ServiceFixture& svc, const std::string& serial) {
  auto r = svc.get("/api/v1/gpus/" + serial + "/health?from=" +
                       inventory::health::formatUtc(std::chrono::floor<std::chrono::seconds>(
                                                        std::chrono::system_clock::now()) -
                                                    std::chrono::hours{1}),
                   "viewer");
  INFO(r.body);
  REQUIRE(r.status == 200);
  REQUIRE(r.json()["resolution"] == "raw");
  return r.json()["points"];
}

// A node whose burn-in is running, with its session token, enrolled into `state_dir`.
long long enrolledNode(ServiceFixture& svc, const std::string& chassis, const fs::path& state_dir) {
  auto node = inventory_test::makeNode(svc.db(), chassis);
  auto task = agent_test::runningTask(svc.db(), node.id);
  agent_test::issue(svc.db(), task, "agt_mon_" + chassis, "session");
  auto client = clientTo(svc.port(), node.id);
  client.setSessionToken("agt_mon_" + chassis);
  REQUIRE_OK(
      agent::enrollForMonitor(client, state_dir, {svc.publicUrl(), std::to_string(node.id)}));
  return node.id;
}

// An enrolled node with two simulated GPUs and its monitor's client, clock and log.
struct EnrolledMonitor {
  ServiceFixture svc;
  TempDir state;
  long long node;
  std::unique_ptr<agent::SimulatedGpuBackend> gpus;
  agent::ServiceClient client;
  FakeTime time;
  std::string log;
  int runs = 0;

  explicit EnrolledMonitor(const std::string& chassis)
      : node(enrolledNode(svc, chassis, state.path)),
        gpus(simGpus(chassis)),
        client(clientTo(svc.port(), node)) {}

  // A restarted monitor samples an interval after the last run's last batch.
  agent::MonitorTotals run(int intervals) {
    if (runs++ > 0) time.t += std::chrono::seconds{30};
    return monitor(monitorOptions(state.path, time, intervals), *gpus, client, log);
  }
  HttpResult operate(const std::string& action) {
    return svc.send("POST", "/api/v1/nodes/" + std::to_string(node) + action, "{}", "operator");
  }
};

}  // namespace

TEST_CASE("The burn-in enrolls the monitor, which keeps every reading through an outage",
          "[integration][agent][monitor]") {
  ServiceFixture svc;
  testing::prepareCatalog(svc);
  TempDir state;
  const std::string mac = "02:00:00:00:60:01";
  const long long node = testing::makeBootNode(svc, "SIM-MON", mac);
  testing::startBurnIn(svc, node, "monitor");
  const std::string token = testing::tokenIn(testing::bootScript(svc, mac).body);
  {
    agent::SimConfig config;
    config.host_serial = "SIM-MON";
    config.nics.push_back({"enp1s0f0", mac});
    auto sim = agent::SimulatedGpuBackend::create(std::move(config));
    REQUIRE(sim);
    auto client = clientTo(svc.port(), node);
    std::ostringstream log;
    agent::AgentOptions options;
    options.boot_token = token;
    options.host = {(*sim)->hostSerial(), (*sim)->nics()};
    options.state_dir = state.path;
    options.service_url = svc.publicUrl();
    options.node_id = std::to_string(node);
    REQUIRE(agent::runAgent(options, **sim, client, log) == 0);
    INFO(log.str());
    CHECK(log.str().find("monitor credential stored") != std::string::npos);
  }
  auto credential = agent::readCredential(state.path);
  REQUIRE_OK(credential);
  CHECK(credential->rfind("nmc_", 0) == 0);
  struct stat st {};
  REQUIRE(::stat((state.path / "credential").c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  auto endpoint = agent::readMonitorEndpoint(state.path);
  REQUIRE_OK(endpoint);
  CHECK(endpoint->node_id == std::to_string(node));

  // The service is unreachable for three intervals: the batches wait on disk.
  std::atomic<bool> down{true};
  testing::FlakyProxy proxy(svc.port(), [&down](int) { return down.load(); });
  auto gpus = simGpus("SIM-MON");
  FakeTime time;
  std::string log;
  auto client = clientTo(proxy.port(), node);
  auto outage = monitor(monitorOptions(state.path, time, 3), *gpus, client, log);
  INFO(log);
  CHECK(outage.sampled == 3);
  CHECK(outage.sent == 0);
  CHECK(queued(state.path) == 3);

  // The agent restarts (a new run over the same queue) and the service is back: all four
  // batches go, oldest first, each stored once.
  down = false;
  time.t += std::chrono::seconds{30};
  auto after = monitor(monitorOptions(state.path, time, 1), *gpus, client, log);
  CHECK(after.sent == 4);
  CHECK(after.refused == 0);
  CHECK(queued(state.path) == 0);
  for (const char* serial : {"SIM-MON-GPU0", "SIM-MON-GPU1"}) {
    const json points = readingsOf(svc, serial);
    REQUIRE(points.size() == 4);
    for (std::size_t i = 1; i < points.size(); ++i) {
      CHECK(points[i - 1]["at"].get<std::string>() < points[i]["at"].get<std::string>());
    }
    // Every reading the simulated GPU has is stored: power and clock beside temperature.
    CHECK(points[0]["power_w"]["max"].is_number());
    CHECK(points[0]["sm_clock_mhz"]["max"].is_number());
  }
}

TEST_CASE("The monitor rotates its credential when an operator asks",
          "[integration][agent][monitor]") {
  EnrolledMonitor m("SIM-ROT");
  const std::string first = *agent::readCredential(m.state.path);
  REQUIRE(m.run(1).sent == 1);

  REQUIRE(m.operate("/credential/rotate").status == 202);
  auto totals = m.run(2);
  INFO(m.log);
  CHECK(totals.sent == 2);
  CHECK(totals.rotations == 1);
  const std::string second = *agent::readCredential(m.state.path);
  CHECK(second != first);
  CHECK(m.log.find(first) == std::string::npos);
  CHECK(m.log.find(second) == std::string::npos);

  auto listed =
      m.svc.get("/api/v1/nodes/" + std::to_string(m.node) + "/credentials", "viewer").json();
  REQUIRE(listed["items"].size() == 2);
  CHECK(listed["items"][0]["live"] == true);
  CHECK_FALSE(listed["items"][0]["first_used_at"].is_null());
  CHECK(listed["items"][1]["revoked_reason"] == "rotated");
}

TEST_CASE("Batches refused for the credential stay queued until the node is enrolled again",
          "[integration][agent][monitor]") {
  EnrolledMonitor m("SIM-REV");
  REQUIRE(m.operate("/credential/revoke").status == 200);
  auto refused = m.run(2);
  INFO(m.log);
  CHECK(refused.sent == 0);
  CHECK(refused.refused == 0);
  CHECK(queued(m.state.path) == 2);
  CHECK(m.log.find("credential_revoked") != std::string::npos);

  // The burn-in enrolls it again: the queued readings go.
  auto enrolling = clientTo(m.svc.port(), m.node);
  enrolling.setSessionToken("agt_mon_SIM-REV");
  REQUIRE_OK(agent::enrollForMonitor(enrolling, m.state.path, {m.svc.publicUrl(), "x"}));
  auto resumed = m.run(1);
  CHECK(resumed.sent == 3);
  CHECK(readingsOf(m.svc, "SIM-REV-GPU0").size() == 3);
}

namespace {

// What a gpu_flag_* run writes first: its resident task of `kind` for GPU `serial`.
inventory::ResidentTask queuedTask(EnrolledMonitor& m, const char* kind, const std::string& serial,
                                   const std::string& spec_json = "{}") {
  inventory::NewWorkflowRun run;
  run.kind = "gpu_flag_test";
  run.subject = std::string("gpu_flag:monitor-test-") + kind;
  run.step = "act";
  run.node_id = m.node;
  run.now = std::chrono::system_clock::now();
  auto created = inventory::createWorkflowRun(m.svc.db(), run);
  REQUIRE(created);
  inventory::ResidentTaskDraft draft{m.node, kind, serial, std::nullopt, created->run.id};
  draft.spec_json = spec_json;
  auto task = inventory::queueResidentTask(m.svc.db(), draft,
                                           std::chrono::floor<std::chrono::seconds>(m.time.t));
  REQUIRE(task);
  return *task;
}

}  // namespace

TEST_CASE(
    "The monitor carries out the GPU reset the service hands it, and the next reading shows it",
    "[integration][agent][monitor][reset]") {
  EnrolledMonitor m("SIM-RST");
  // GPU 1 has a row remap waiting for the next reset.
  auto config = agent::parseSimConfigText(
      R"({"host_serial": "SIM-RST", "gpus": 2, "faults": [{"gpu": 1, "kind": "remap_pending"}]})");
  REQUIRE(config);
  auto sim = agent::SimulatedGpuBackend::create(*config);
  REQUIRE(sim);
  m.gpus = std::move(sim).value();
  REQUIRE(m.run(1).sent == 1);
  auto before = inventory::gpuRemapState(m.svc.db(), "SIM-RST-GPU1");
  REQUIRE(before);
  CHECK(before->remap_pending);

  // What a gpu_flag_reset run writes first.
  const auto task = queuedTask(m, inventory::kResidentGpuReset, "SIM-RST-GPU1");

  // The next batch's answer hands it over; the one after shows the remap applied.
  auto totals = m.run(2);
  INFO(m.log);
  CHECK(totals.sent == 2);
  CHECK(totals.tasks == 1);
  CHECK(m.gpus->resets(1) == 1);
  CHECK(m.gpus->resets(0) == 0);
  auto finished = inventory::getResidentTask(m.svc.db(), task.id);
  REQUIRE(finished);
  CHECK(finished->state == "succeeded");
  CHECK(finished->message == "GPU reset; no row remap pending");
  auto after = inventory::gpuRemapState(m.svc.db(), "SIM-RST-GPU1");
  REQUIRE(after);
  CHECK_FALSE(after->remap_pending);
  // Dated on the node's clock, as the readings are (the test's node runs 20 minutes behind).
  CHECK(*after->last_sample > *inventory::health::parseUtc(finished->done_at));
  CHECK_FALSE(fs::exists(m.state.path / "tasks" / std::to_string(task.id)));

  // Later answers no longer list it: nothing is reset again.
  m.run(2);
  CHECK(m.gpus->resets(1) == 1);
}

TEST_CASE("The monitor reruns the burn-in the service hands it; the service judges the result",
          "[integration][agent][monitor][burn_in]") {
  EnrolledMonitor m("SIM-BIN");
  // GPU 1 computes at half speed: the verdict must name it.
  auto config = agent::parseSimConfigText(R"({"host_serial": "SIM-BIN", "gpus": 4,
      "in_service_load": true, "faults": [{"gpu": 1, "kind": "slow_compute", "factor": 0.5}]})");
  REQUIRE(config);
  auto sim = agent::SimulatedGpuBackend::create(*config);
  REQUIRE(sim);
  m.gpus = std::move(sim).value();
  auto plan = agent::defaultBurnInPlan();
  for (auto& test : plan.tests) test.duration_s = 1;
  const json spec = {{"plan", agent::toJson(plan)}, {"expected_gpus", 4}};
  const auto task = queuedTask(m, inventory::kResidentBurnIn, "SIM-BIN-GPU1", spec.dump());

  auto totals = m.run(1);
  INFO(m.log);
  CHECK(totals.sent == 1);
  CHECK(totals.tasks == 1);
  auto finished = inventory::getResidentTask(m.svc.db(), task.id);
  REQUIRE(finished);
  // The agent ran it; the service judged it failed, with the GPU's figures.
  CHECK(finished->state == "failed");
  CHECK(finished->message.find("SIM-BIN-GPU1") != std::string::npos);
  const auto verdict = json::parse(finished->verdict_json);
  CHECK(verdict["passed"] == false);
  bool named = false;
  for (const auto& f : verdict["failures"]) {
    if (f["gpu_serial"] == "SIM-BIN-GPU1" && f["check"] == "compute") named = true;
    CHECK(f["gpu_serial"] == "SIM-BIN-GPU1");  // the healthy GPUs pass
  }
  CHECK(named);
  // The operators' listing shows the verdict; the journal is gone, nothing runs twice.
  auto listed = m.svc.get("/api/v1/nodes/" + std::to_string(m.node) + "/resident-tasks", "viewer");
  REQUIRE(listed.status == 200);
  CHECK(listed.json()["items"][0]["verdict"]["passed"] == false);
  CHECK_FALSE(fs::exists(m.state.path / "tasks" / std::to_string(task.id)));
  CHECK(m.run(1).tasks == 0);
}

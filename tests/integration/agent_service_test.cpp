// provisioner-agent's flow (runAgent, the simulated GPU backend and the real service client)
// against the real service over HTTP: registration, a full plan, the verdict each injected fault
// must produce, peers across nodes of a batch, and a network that drops connections.
#include <set>
#include <sstream>

#include <catch2/catch.hpp>

#include "agent/agent_main.hpp"
#include "agent/service_client.hpp"
#include "agent/sim_backend.hpp"
#include "boot_test_support.hpp"
#include "flaky_proxy.hpp"

using nlohmann::json;
using testing::ServiceFixture;

namespace {

struct AgentRun {
  int exit_code = -1;
  std::vector<std::chrono::milliseconds> backoffs;  // what the client would have slept
  std::string log;
};

// Boots `node` (renders its script) and runs the agent as the image would, through `port`.
AgentRun runAgentFor(ServiceFixture& svc, long long node, const std::string& mac,
                     agent::SimConfig config, int port) {
  const std::string token = testing::tokenIn(testing::bootScript(svc, mac).body);
  auto sim = agent::SimulatedGpuBackend::create(std::move(config));
  REQUIRE(sim);
  AgentRun run;
  agent::ServiceClientOptions options;
  options.base_url = "http://127.0.0.1:" + std::to_string(port);
  options.node_id = std::to_string(node);
  options.jitter_seed = 5;
  options.sleeper = [&run](std::chrono::milliseconds d) { run.backoffs.push_back(d); };
  auto client = agent::ServiceClient::create(std::move(options));
  REQUIRE(client);
  std::ostringstream log;
  agent::AgentOptions agent_options;
  agent_options.boot_token = token;
  agent_options.host = {(*sim)->hostSerial(), (*sim)->nics()};
  run.exit_code = agent::runAgent(agent_options, **sim, *client, log);
  run.log = log.str();
  CHECK(run.log.find(token) == std::string::npos);
  return run;
}

agent::SimConfig simNode(const std::string& host, const std::string& mac) {
  agent::SimConfig config;
  config.host_serial = host;
  config.seed = std::hash<std::string>{}(host);
  config.noise = 0.01;
  config.nics.push_back({"enp1s0f0", mac});
  return config;
}

json taskOf(ServiceFixture& svc, long long task) {
  auto r = svc.get("/api/v1/tasks/" + std::to_string(task), "viewer");
  REQUIRE(r.status == 200);
  return r.json();
}

// "serial check reason" of every failure in the verdict.
std::set<std::string> failuresOf(const json& task) {
  std::set<std::string> out;
  for (const auto& f : task["verdict"]["failures"]) {
    out.insert(f.value("gpu_serial", "") + " " + f.value("check", "") + " " +
               f.value("reason", ""));
  }
  return out;
}

}  // namespace

TEST_CASE("Each injected GPU fault fails the burn-in with its own reason", "[integration][agent]") {
  ServiceFixture svc;
  testing::prepareCatalog(svc);
  const std::string mac = "02:00:00:00:20:01";
  const long long node = testing::makeBootNode(svc, "SIM-FAULTS", mac);
  const long long task = testing::startBurnIn(svc, node, "faults");
  auto config = simNode("SIM-FAULTS", mac);
  config.faults = {{1, "ecc_errors", 1, 0, 2, 0, 0, ""},
                   {2, "thermal_throttle", 1, 0, 0, 0, 0, ""},
                   {4, "pcie_x8", 1, 0, 0, 0, 0, ""},
                   {6, "xid", 1, 0, 0, 0, 79, ""},
                   {7, "missing", 1, 0, 0, 0, 0, ""}};
  auto run = runAgentFor(svc, node, mac, config, svc.port());
  INFO(run.log);
  REQUIRE(run.exit_code == 0);

  const auto stored = taskOf(svc, task);
  CHECK(stored["state"] == "failed");
  const auto failures = failuresOf(stored);
  INFO(stored["verdict"].dump(2));
  CHECK(failures.count("SIM-FAULTS-GPU1 ecc ecc_uncorrectable") == 1);
  CHECK(failures.count("SIM-FAULTS-GPU2 thermal thermal") == 1);
  CHECK(failures.count("SIM-FAULTS-GPU4 pcie_link pcie_link_degraded") == 1);
  CHECK(failures.count("SIM-FAULTS-GPU4 pcie_h2d below_threshold") == 1);
  CHECK(failures.count("SIM-FAULTS-GPU6 xid xid") == 1);
  bool missing_reported = false;
  for (const auto& f : failures) missing_reported |= f.find("gpu_missing") != std::string::npos;
  CHECK(missing_reported);
  // The healthy GPUs are not blamed for anything.
  for (const auto& f : failures) {
    for (const char* healthy : {"GPU0 ", "GPU3 ", "GPU5 "}) {
      CHECK(f.find(std::string("SIM-FAULTS-") + healthy) == std::string::npos);
    }
  }
  // Seven GPUs answered: 5 tests each.
  CHECK(stored["results"].size() == 35);
  CHECK(stored["facts"]["gpus"].size() == 7);
}

TEST_CASE("A healthy batch passes and later nodes are judged against their peers",
          "[integration][agent]") {
  ServiceFixture svc;
  testing::prepareCatalog(svc);
  for (int i = 1; i <= 3; ++i) {
    const std::string mac = "02:00:00:00:30:0" + std::to_string(i);
    const std::string host = "SIM-HEALTHY-" + std::to_string(i);
    const long long node = testing::makeBootNode(svc, host, mac);
    const long long task = testing::startBurnIn(svc, node, "rack-h");
    auto run = runAgentFor(svc, node, mac, simNode(host, mac), svc.port());
    INFO(run.log);
    REQUIRE(run.exit_code == 0);
    const auto stored = taskOf(svc, task);
    INFO(stored["verdict"].dump(2));
    CHECK(stored["state"] == "passed");
    // Every result carries its batch median and z-score; the third node sees 24 values.
    for (const auto& r : stored["results"]) {
      CHECK(r["robust_z"].is_number());
      CHECK(r["batch_median"].is_number());
    }
    if (i == 3) {
      for (const auto& e : stored["verdict"]["evaluations"]) CHECK(e["batch_size"] == 24);
    }
  }
}

TEST_CASE("The agent retries through a network that drops connections", "[integration][agent]") {
  ServiceFixture svc;
  testing::prepareCatalog(svc);
  const std::string mac = "02:00:00:00:40:01";
  const long long node = testing::makeBootNode(svc, "SIM-FLAKY", mac);
  const long long task = testing::startBurnIn(svc, node, "flaky");
  // Every other connection is reset the moment it is accepted.
  testing::FlakyProxy proxy(svc.port(), [](int n) { return n % 2 == 0; });
  auto run = runAgentFor(svc, node, mac, simNode("SIM-FLAKY", mac), proxy.port());
  INFO(run.log);
  REQUIRE(run.exit_code == 0);
  CHECK(proxy.dropped() >= 1);
  CHECK(run.backoffs.size() >= static_cast<std::size_t>(proxy.dropped()) / 2);
  const auto stored = taskOf(svc, task);
  CHECK(stored["state"] == "passed");
  CHECK(stored["results"].size() == 40);
}

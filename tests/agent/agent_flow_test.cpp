// provisioner-agent's flow (runAgent) against the fake service over real sockets.
#include <catch2/catch.hpp>

#include <sstream>

#include "agent/agent_main.hpp"
#include "agent/drives_flow.hpp"
#include "agent/sim_backend.hpp"
#include "fake_agent_service.hpp"

using agent_testing::FakeAgentService;
using agent_testing::ScriptedAnswer;
using nlohmann::json;

namespace {

struct AgentRun {
  explicit AgentRun(FakeAgentService& service, json sim_config = json::object(),
                    int max_attempts = 8) {
    auto config = agent::parseSimConfig(sim_config);
    REQUIRE(config.ok());
    auto created = agent::SimulatedGpuBackend::create(std::move(config).value());
    REQUIRE(created.ok());
    sim = std::move(created).value();
    agent::ServiceClientOptions options;
    options.base_url = service.baseUrl();
    options.node_id = "42";
    options.retry.max_attempts = max_attempts;
    options.jitter_seed = 11;
    options.sleeper = [this](std::chrono::milliseconds delay) { sleeps.push_back(delay); };
    auto made = agent::ServiceClient::create(std::move(options));
    REQUIRE(made.ok());
    client = std::make_unique<agent::ServiceClient>(std::move(made).value());
  }

  int run(std::string token = FakeAgentService::kBootToken) {
    agent::AgentOptions options;
    options.boot_token = std::move(token);
    options.host = {sim->hostSerial(), sim->nics()};
    return agent::runAgent(options, *sim, *client, log);
  }

  std::unique_ptr<agent::SimulatedGpuBackend> sim;
  std::unique_ptr<agent::ServiceClient> client;
  std::vector<std::chrono::milliseconds> sleeps;
  std::ostringstream log;
};

void checkNoSecrets(const std::string& log) {
  CHECK(log.find(FakeAgentService::kBootToken) == std::string::npos);
  CHECK(log.find(FakeAgentService::kSessionToken) == std::string::npos);
}

}  // namespace

TEST_CASE("agent full run registers runs the plan and posts every measurement", "[agent]") {
  FakeAgentService service;
  service.setVerdict(
      "failed",
      {{"passed", false}, {"failures", json::array({{{"message", "GPU SIM-0001-GPU3 is slow"}}})}});
  AgentRun agent_run(service, {{"gpus", 8}, {"host_serial", "SIM-0001"}});
  CHECK(agent_run.run() == agent::kExitOk);

  auto record = service.record();
  CHECK(record.invalid.empty());
  CHECK(record.calls.front() == "register");
  CHECK(record.calls.back() == "result");
  CHECK(record.bearer.front() == FakeAgentService::kBootToken);
  for (std::size_t i = 1; i < record.bearer.size(); ++i) {
    CHECK(record.bearer[i] == FakeAgentService::kSessionToken);
  }
  CHECK(record.facts["host_serial"] == "SIM-0001");
  CHECK(record.facts["gpus"].size() == 8);
  CHECK(record.facts["backend"] == "simulated");
  CHECK(record.progress.size() == 5 * 8);  // at most one per test per GPU
  REQUIRE(record.results.size() == 1);
  CHECK(record.results[0]["task_id"] == FakeAgentService::kTaskId);
  CHECK(record.results[0]["measurements"].size() == 5 * 8);
  CHECK(record.results[0]["health"].size() == 8);
  CHECK(record.results[0]["error"] == "");
  std::string log = agent_run.log.str();
  CHECK(log.find("burn-in task 7: failed") != std::string::npos);
  CHECK(log.find("GPU SIM-0001-GPU3 is slow") != std::string::npos);
  checkNoSecrets(log);
  CHECK(agent_run.sleeps.empty());
}

TEST_CASE("agent retries 503 twice with growing jittered back-off", "[agent]") {
  FakeAgentService service;
  service.script("register", {503, "service_unavailable"});
  service.script("register", {503, ""});
  AgentRun agent_run(service);
  CHECK(agent_run.run() == agent::kExitOk);
  auto record = service.record();
  CHECK(std::count(record.calls.begin(), record.calls.end(), "register") == 3);
  // Every attempt of the registration carries the same key: a retry whose first attempt the
  // service took is known for what it is (docs/agent.md), not refused as a second use.
  REQUIRE(record.idempotency_keys.size() >= 4);
  CHECK(record.idempotency_keys[0].size() == 32);
  CHECK(record.idempotency_keys[1] == record.idempotency_keys[0]);
  CHECK(record.idempotency_keys[2] == record.idempotency_keys[0]);
  CHECK(record.idempotency_keys[3].empty());  // the task fetch: not a registration
  REQUIRE(agent_run.sleeps.size() == 2);
  CHECK(agent_run.sleeps[0].count() >= 250);
  CHECK(agent_run.sleeps[0].count() <= 500);
  CHECK(agent_run.sleeps[1].count() >= 500);
  CHECK(agent_run.sleeps[1].count() <= 1000);
  CHECK(record.results.size() == 1);
}

TEST_CASE("agent honours Retry-After on 429", "[agent]") {
  FakeAgentService service;
  service.script("task", {429, "rate_limited", false, "3"});
  AgentRun agent_run(service);
  CHECK(agent_run.run() == agent::kExitOk);
  REQUIRE(agent_run.sleeps.size() == 1);
  CHECK(agent_run.sleeps[0] == std::chrono::milliseconds(3000));
}

TEST_CASE("agent gives up after the configured attempts", "[agent]") {
  FakeAgentService service;
  for (int i = 0; i < 3; ++i) service.script("register", {502, ""});
  AgentRun agent_run(service, json::object(), /*max_attempts=*/3);
  CHECK(agent_run.run() == agent::kExitFailure);
  CHECK(service.record().calls.size() == 3);
  CHECK(agent_run.sleeps.size() == 2);
  CHECK(agent_run.log.str().find("service_unreachable") != std::string::npos);
}

TEST_CASE("agent exits 1 on a used boot token without retrying", "[agent]") {
  FakeAgentService service;
  service.script("register", {401, "agent_token_used"});
  AgentRun agent_run(service);
  CHECK(agent_run.run() == agent::kExitFailure);
  auto record = service.record();
  CHECK(record.calls == std::vector<std::string>{"register"});
  CHECK(agent_run.sleeps.empty());
  std::string log = agent_run.log.str();
  CHECK(log.find("agent_token_used") != std::string::npos);
  checkNoSecrets(log);
}

TEST_CASE("agent exits 1 on a wrong boot token", "[agent]") {
  FakeAgentService service;
  AgentRun agent_run(service);
  CHECK(agent_run.run("boot_wrong") == agent::kExitFailure);
  CHECK(agent_run.log.str().find("agent_token_unknown") != std::string::npos);
  CHECK(agent_run.log.str().find("boot_wrong") == std::string::npos);
}

TEST_CASE("agent treats 409 task_not_open after a lost result answer as accepted", "[agent]") {
  FakeAgentService service;
  service.script("result", {504, "", /*apply_first=*/true});
  AgentRun agent_run(service);
  CHECK(agent_run.run() == agent::kExitOk);
  auto record = service.record();
  CHECK(std::count(record.calls.begin(), record.calls.end(), "result") == 2);
  CHECK(record.results.size() == 1);
  CHECK(agent_run.log.str().find("already accepted") != std::string::npos);
}

TEST_CASE("agent reports a first-attempt 409 on the result as a failure", "[agent]") {
  FakeAgentService service;
  service.script("result", {409, "task_not_open"});
  AgentRun agent_run(service);
  CHECK(agent_run.run() == agent::kExitFailure);
  CHECK(agent_run.log.str().find("task_not_open") != std::string::npos);
}

TEST_CASE("agent exits 0 without work on a none task", "[agent]") {
  FakeAgentService service;
  service.setTask({{"id", 0}, {"kind", "none"}});
  AgentRun agent_run(service);
  CHECK(agent_run.run() == agent::kExitOk);
  CHECK(service.record().calls == std::vector<std::string>{"register", "task"});
  CHECK(agent_run.log.str().find("no task") != std::string::npos);
}

TEST_CASE("agent refuses a malformed task answer", "[agent]") {
  FakeAgentService service;
  service.setTaskBody(R"({"id": 7, "kind": "burn_in", "plan": {"tests": ["melt"]}})");
  AgentRun agent_run(service);
  CHECK(agent_run.run() == agent::kExitFailure);
  CHECK(agent_run.log.str().find("bad_service_answer") != std::string::npos);
  CHECK(service.record().results.empty());

  FakeAgentService garbage;
  garbage.setTaskBody("<html>proxy error</html>");
  AgentRun second(garbage);
  CHECK(second.run() == agent::kExitFailure);
}

TEST_CASE("agent stops the run when progress is refused with a revoked token", "[agent]") {
  FakeAgentService service;
  service.script("progress", {401, "agent_token_revoked"});
  AgentRun agent_run(service);
  CHECK(agent_run.run() == agent::kExitFailure);
  auto record = service.record();
  CHECK(std::count(record.calls.begin(), record.calls.end(), "progress") == 1);
  CHECK(record.results.empty());
  CHECK(agent_run.log.str().find("agent_token_revoked") != std::string::npos);
}

TEST_CASE("agent carries on when a progress report is lost", "[agent]") {
  FakeAgentService service;
  AgentRun agent_run(service);
  // The first report is given up after its two attempts; the second gets through on its retry.
  service.script("progress", {503, ""});
  service.script("progress", {502, ""});
  service.script("progress", {503, ""});
  CHECK(agent_run.run() == agent::kExitOk);
  auto record = service.record();
  CHECK(std::count(record.calls.begin(), record.calls.end(), "progress") == 40 + 2);
  CHECK(record.progress.size() == 39);
  CHECK(agent_run.sleeps.size() == 2);
  CHECK(record.results.size() == 1);
}

TEST_CASE("agent posts a backend error naming the GPU and test", "[agent]") {
  FakeAgentService service;
  AgentRun agent_run(
      service,
      {{"faults", json::array({{{"gpu", 2}, {"kind", "kernel_error"}, {"test", "compute"}}})}});
  CHECK(agent_run.run() == agent::kExitOk);
  auto record = service.record();
  REQUIRE(record.results.size() == 1);
  std::string error = record.results[0]["error"];
  CHECK(error.find("GPU 2") != std::string::npos);
  CHECK(error.find("compute") != std::string::npos);
  CHECK(record.results[0]["measurements"].size() == 39);
  CHECK(agent_run.log.str().find("burn-in task 7: error") != std::string::npos);
}

TEST_CASE("agent runs a wipe task on GPUs and drives and posts the report", "[agent]") {
  FakeAgentService service;
  service.setTask(
      {{"id", 7},
       {"kind", "wipe"},
       {"wipe", {{"seed", 1}, {"skip_drive_serials", json::array({"SIM-0001-NVME2"})}}}});
  AgentRun agent_run(service,
                     {{"gpus", 2},
                      {"host_serial", "SIM-0001"},
                      {"drives", 3},
                      {"drive_capacity_bytes", 16 << 20},
                      {"drive_faults", json::array({{{"drive", 1}, {"kind", "keeps_data"}}})}});
  CHECK(agent_run.run() == agent::kExitOk);
  auto record = service.record();
  CHECK(record.invalid.empty());
  REQUIRE(record.results.size() == 1);
  const json& result = record.results[0];
  CHECK(result["error"] == "");
  REQUIRE(result.contains("wipe"));
  const json& wipe = result["wipe"];
  CHECK(wipe["tool"] == "provisioner-agent");
  CHECK(wipe["tool_version"] == std::string(agent::kAgentVersion));
  CHECK(wipe["backend"] == "simulated");
  REQUIRE(wipe["gpus"].size() == 2);
  CHECK(wipe["gpus"][0]["gpu_serial"] == "SIM-0001-GPU0");
  CHECK(wipe["gpus"][0]["passes"].size() == 3);
  REQUIRE(wipe["drives"].size() == 2);  // NVME2 is left to the service
  CHECK(wipe["drives"][0]["serial"] == "SIM-0001-NVME0");
  CHECK(wipe["drives"][0]["method"] == "nvme_sanitize_crypto");
  CHECK(wipe["drives"][0]["nist_level"] == "purge");
  CHECK(wipe["drives"][0]["result"] == "passed");
  CHECK(wipe["drives"][0]["tool_version"] == std::string(agent::kAgentVersion));
  CHECK(wipe["drives"][0]["verification"]["canaries_written"] == agent::kCanaryCount);
  CHECK(wipe["drives"][1]["serial"] == "SIM-0001-NVME1");
  CHECK(wipe["drives"][1]["result"] == "failed");
  CHECK(wipe["drives"][1]["verification"]["canaries_remaining"] == agent::kCanaryCount);
  std::string log = agent_run.log.str();
  CHECK(log.find("wipe task 7: 2 GPU(s)") != std::string::npos);
  CHECK(log.find("drive SIM-0001-NVME2: left to the service") != std::string::npos);
  checkNoSecrets(log);
}

TEST_CASE("agent without a drive backend wipes the GPUs and says drives are not erased",
          "[agent]") {
  FakeAgentService service;
  service.setTask({{"id", 7}, {"kind", "wipe"}, {"wipe", {{"seed", 1}}}});
  AgentRun agent_run(service, {{"gpus", 1}});
  agent::AgentOptions options;
  options.boot_token = FakeAgentService::kBootToken;
  options.host = {agent_run.sim->hostSerial(), agent_run.sim->nics()};
  CHECK(agent::runAgent(options, *agent_run.sim, agent::AgentDrives{}, *agent_run.client,
                        agent_run.log) == agent::kExitOk);
  auto record = service.record();
  REQUIRE(record.results.size() == 1);
  CHECK(record.results[0]["wipe"]["gpus"].size() == 1);
  CHECK(record.results[0]["wipe"]["drives"].empty());
  CHECK(agent_run.log.str().find("drives are not erased in band") != std::string::npos);
}

#include <catch2/catch.hpp>

#include "agent/cmdline.hpp"
#include "agent/service_client.hpp"

TEST_CASE("agent kernel command line gives url node and token", "[agent]") {
  auto params = agent::parseKernelCmdline(
      "BOOT_IMAGE=/vmlinuz ro quiet provisioner.url=https://prov.example:8443 "
      "provisioner.node=42 provisioner.token=boot_abc console=ttyS0,115200n8\n");
  CHECK(params.url == "https://prov.example:8443");
  CHECK(params.node == "42");
  CHECK(params.token == "boot_abc");
}

TEST_CASE("agent kernel command line handles quotes and repeats", "[agent]") {
  auto params = agent::parseKernelCmdline(
      R"(provisioner.node=1 foo="a b c" "provisioner.url=http://h:1/x y" provisioner.node="7")");
  CHECK(params.url == "http://h:1/x y");
  CHECK(params.node == "7");
  CHECK(params.token.empty());
  CHECK(agent::parseKernelCmdline("").url.empty());
  CHECK(agent::parseKernelCmdline("provisioner.url").url.empty());
}

TEST_CASE("agent flags parse and override the kernel command line", "[agent]") {
  auto args = agent::parseAgentArgs({"--node", "9", "--backend=simulated", "--max-attempts", "3",
                                     "--sim-config", "/tmp/sim.json"});
  REQUIRE(args.ok());
  CHECK(args->node_id == "9");
  CHECK(args->backend == "simulated");
  CHECK(args->max_attempts == 3);
  CHECK(args->cmdline_file == "/proc/cmdline");
  auto merged = agent::applyKernelParams(*args, {"http://svc", "1", "tok"});
  REQUIRE(merged.ok());
  CHECK(merged->node_id == "9");
  CHECK(merged->service_url == "http://svc");
  CHECK(merged->token == "tok");
}

TEST_CASE("agent flags report usage errors naming the flag", "[agent]") {
  CHECK(agent::parseAgentArgs({"--frobnicate"}).error().field == "--frobnicate");
  CHECK(agent::parseAgentArgs({"--node"}).error().field == "--node");
  CHECK(agent::parseAgentArgs({"--max-attempts", "0"}).error().field == "--max-attempts");
  CHECK(agent::parseAgentArgs({"--max-attempts", "3x"}).error().field == "--max-attempts");
  CHECK(agent::parseAgentArgs({"--backend", "opencl"}).error().field == "--backend");
  CHECK(agent::parseAgentArgs({"--help"})->help);
  auto missing = agent::applyKernelParams(agent::AgentArgs{}, {"http://svc", "", "tok"});
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().code == "usage");
  CHECK(missing.error().field == "--node");
}

TEST_CASE("agent back-off doubles with equal jitter up to the cap", "[agent]") {
  agent::RetryPolicy policy;  // 500 ms base, 30 s cap
  using std::chrono::milliseconds;
  CHECK(agent::backoffDelay(1, policy, 0.0) == milliseconds(250));
  CHECK(agent::backoffDelay(1, policy, 0.999) == milliseconds(499));
  CHECK(agent::backoffDelay(2, policy, 0.0) == milliseconds(500));
  CHECK(agent::backoffDelay(4, policy, 0.5) == milliseconds(3000));
  CHECK(agent::backoffDelay(7, policy, 0.0) == milliseconds(15000));
  CHECK(agent::backoffDelay(20, policy, 1.0) == milliseconds(30000));
}

TEST_CASE("agent monitor mode parses its flags and needs no boot token", "[agent][monitor]") {
  auto args = agent::parseAgentArgs({"monitor", "--interval-seconds", "10", "--state-dir", "/s",
                                     "--spool-max-batches=5", "--intervals", "2"});
  REQUIRE(args.ok());
  CHECK(args->monitor);
  CHECK(args->interval_seconds == 10);
  CHECK(args->state_dir == "/s");
  CHECK(args->spool_max_batches == 5);
  CHECK(args->intervals == 2);
  auto merged = agent::applyKernelParams(*args, {"http://svc", "4", ""});
  REQUIRE(merged.ok());
  CHECK(merged->token.empty());
  // A burn-in still needs its boot token; monitor's numbers are bounded.
  CHECK(agent::applyKernelParams(agent::AgentArgs{}, {"http://svc", "4", ""}).error().field ==
        "--token");
  CHECK(agent::parseAgentArgs({"monitor", "--interval-seconds", "0"}).error().field ==
        "--interval-seconds");
  CHECK(agent::parseAgentArgs({"monitor", "--spool-max-batches", "-1"}).error().field ==
        "--spool-max-batches");
  CHECK(agent::parseAgentArgs({"monitor", "--local-task", "t.json"}).error().field ==
        "--local-task");
  CHECK_FALSE(agent::parseAgentArgs({"--interval-seconds", "30"})->monitor);
}

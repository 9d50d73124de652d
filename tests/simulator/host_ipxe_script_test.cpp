// The host's reading of the iPXE scripts the service renders (the real images:: renderer), and
// the simulated backend's configuration for a machine.
#include <catch2/catch.hpp>

#include "agent/sim_backend.hpp"
#include "host/agent_host.hpp"
#include "host/ipxe_script.hpp"
#include "images/ipxe.hpp"

using namespace sim::host;

TEST_CASE("A rendered boot script gives kernel initrd arguments and digests", "[host]") {
  images::BootScriptSpec spec;
  spec.label = "node 3: burnin 1.0";
  spec.kernel_url = "http://10.0.0.1:8080/boot/artifacts/" + std::string(64, 'a');
  spec.kernel_sha256 = std::string(64, 'a');
  spec.initrd_url = "http://10.0.0.1:8080/boot/artifacts/" + std::string(64, 'b');
  spec.initrd_sha256 = std::string(64, 'b');
  spec.image_kernel_args = "console=ttyS0  quiet";
  spec.kernel_params = {{"provisioner.url", "http://10.0.0.1:8080"},
                        {"provisioner.token", "tok_1"}};
  auto script = parseIpxeScript(images::renderBootScript(spec).value());
  REQUIRE(script);
  CHECK(script->kind == ScriptKind::kBoot);
  CHECK(script->kernelUrl == spec.kernel_url);
  CHECK(script->initrdUrl == spec.initrd_url);
  CHECK(script->kernelArgs ==
        "console=ttyS0 quiet provisioner.url=http://10.0.0.1:8080 provisioner.token=tok_1");
  CHECK(script->kernelSha256 == std::string(64, 'a'));
  CHECK(script->initrdSha256 == std::string(64, 'b'));
  // Its retry loop: a failed download or digest starts over after retry_seconds.
  CHECK(script->retriesOnFailure);
  CHECK(script->sleepSeconds == spec.retry_seconds);
}

TEST_CASE("A boot script without a loop back gives up on a failed download", "[host]") {
  auto script = parseIpxeScript(
      "#!ipxe\nkernel http://x/k || goto failed\ninitrd http://x/i\nboot\n:failed\nsleep 5\n");
  REQUIRE(script);
  CHECK(script->kind == ScriptKind::kBoot);
  CHECK_FALSE(script->retriesOnFailure);
}

TEST_CASE("Rendered retry and local-disk scripts are recognised", "[host]") {
  auto retry = parseIpxeScript(
      images::renderRetryScript("not yet", 45, "http://s/boot/ipxe?mac=${net0/mac}"));
  REQUIRE(retry);
  CHECK(retry->kind == ScriptKind::kRetry);
  CHECK(retry->sleepSeconds == 45);
  CHECK(retry->chainUrl == "http://s/boot/ipxe?mac=${net0/mac}");
  auto local = parseIpxeScript(images::renderLocalBootScript("nothing to do"));
  REQUIRE(local);
  CHECK(local->kind == ScriptKind::kLocalDisk);
}

TEST_CASE("Text that is not a usable iPXE script is refused", "[host]") {
  CHECK_FALSE(parseIpxeScript("<html>502 Bad Gateway</html>"));
  CHECK_FALSE(parseIpxeScript("#!ipxe\necho hello\n"));
  CHECK_FALSE(parseIpxeScript("#!ipxe\nkernel http://x/k\nboot\n"));  // no initrd
  CHECK_FALSE(parseIpxeScript("#!ipxe\n" + std::string(70000, '#')));
}

TEST_CASE("The simulated backend holds the machine's GPUs and faults", "[host]") {
  Machine machine;
  machine.identity.gpuModel = "H100 80GB HBM3";
  machine.identity.gpuSerials = {"S0", "S1"};
  machine.identity.gpuUuids = {"U0", "U1"};
  machine.identity.systemSerial = "HOST1";
  machine.identity.hostMacs = {"5C:FF:35:FE:04:B1"};
  agent::SimFault missing;
  missing.kind = "missing";
  missing.gpu = 1;
  machine.gpuFaults.push_back(missing);
  missing.gpu = 5;  // beyond this machine's GPUs
  machine.gpuFaults.push_back(missing);
  machine.seed = 9;
  agent::SimConfig config = simConfigFor(machine, 50);
  CHECK(config.model == "NVIDIA H100 80GB HBM3");
  CHECK(config.gpus == 2);
  CHECK(config.time_scale == Approx(0.02));
  CHECK(config.faults.size() == 1);  // GPU 5 is not in this machine
  REQUIRE(config.nics.size() == 1);
  CHECK(config.nics[0].mac == "5c:ff:35:fe:04:b1");
  auto gpus = agent::SimulatedGpuBackend::create(config).value()->discover().value();
  REQUIRE(gpus.size() == 1);
  CHECK(gpus[0].serial == "S0");
  CHECK(gpus[0].uuid == "U0");

  machine.identity.gpuModel = "NVIDIA H100 PCIe";  // no nominal figures: the fallback model
  machine.identity.gpuSerials.clear();
  config = simConfigFor(machine, 1);
  CHECK(config.model == "NVIDIA H100 80GB HBM3");
  CHECK(config.gpus == 8);
}

TEST_CASE("The simulated backend config takes GPU serials and UUIDs", "[host]") {
  auto config = agent::parseSimConfigText(
      R"({"gpus": 2, "host_serial": "H", "gpu_serials": ["A"], "gpu_uuids": ["GPU-a", "GPU-b"]})");
  REQUIRE(config);
  auto gpus = agent::SimulatedGpuBackend::create(*config).value()->discover().value();
  REQUIRE(gpus.size() == 2);
  CHECK(gpus[0].serial == "A");
  CHECK(gpus[1].serial == "H-GPU1");  // past the list: the old default
  CHECK(gpus[1].uuid == "GPU-b");
  auto tooMany = agent::parseSimConfigText(R"({"gpus": 1, "gpu_serials": ["A", "B"]})");
  REQUIRE_FALSE(tooMany);
  CHECK(tooMany.error().field == "gpu_serials");
  auto empty = agent::parseSimConfigText(R"({"gpu_serials": [""]})");
  REQUIRE_FALSE(empty);
  CHECK(empty.error().field == "gpu_serials[0]");
}

// The simulated hosts boot for real: a reset with a one-time network boot fetches the iPXE script
// from a (fake) service, the kernel and initrd with their digests checked, and runs the real
// agent on the simulated GPUs of that node, against the service over HTTP.
#include <algorithm>
#include <filesystem>

#include <catch2/catch.hpp>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include "agent/monitor.hpp"
#include "common/mac_address.hpp"
#include "simulator/fleet.hpp"
#include "simulator/support/engine_test_support.hpp"
#include "simulator/support/fake_boot_service.hpp"

using namespace sim;
using nlohmann::json;
using sim::test::FakeBootService;
using sim::test::waitFor;

namespace {

constexpr const char* kSystem = "/redfish/v1/Systems/DGX";
constexpr auto kAgentDeadline = std::chrono::seconds(60);

struct BootFleet {
  // `timeScale` 1000: the default burn-in plan (400 simulated seconds) takes 0.4 s.
  BootFleet(const std::string& addressBase, const json& faults = json::object(),
            double timeScale = 1000, int maxScriptRetries = 20,
            const std::string& hostStateDir = "") {
    json file = {
        {"seed", 3},
        {"time_scale", timeScale},
        {"tls", false},
        {"port", 0},
        {"address_base", addressBase},
        {"boot", {{"service_url", service.baseUrl()}, {"max_script_retries", maxScriptRetries}}},
        {"racks", {{{"name", "r01"}, {"nodes", 1}, {"profile", "dgx-h100"}}}}};
    if (!hostStateDir.empty()) {
      file["boot"]["host_state_dir"] = hostStateDir;
      file["boot"]["monitor_interval_seconds"] = 1;
    }
    if (!faults.empty()) file["racks"][0]["faults"] = faults;
    auto spec = parseFleetSpec(file);
    REQUIRE(spec);
    auto started = Fleet::start(*spec);
    REQUIRE(started);
    fleet = std::move(*started);
    bmc = fleet->bmc("r01-n01").value();
  }

  std::unique_ptr<httplib::Client> client() const {
    auto c = std::make_unique<httplib::Client>(bmc.baseUrl);
    c->set_basic_auth(bmc.credentials.username, bmc.credentials.password);
    return c;
  }
  // PATCHes a one-time boot override (none when `target` is empty) and force-restarts the host.
  void reset(const std::string& target) const {
    auto c = client();
    if (!target.empty()) {
      json boot = {
          {"Boot", {{"BootSourceOverrideTarget", target}, {"BootSourceOverrideEnabled", "Once"}}}};
      // The DGX's AMI BMC wants If-Match on a PATCH; the system changes as the host runs (its
      // boot progress), so a 412 means read it again and retry, as a real client does.
      int status = 0;
      for (int attempt = 0; attempt < 5 && status != 204; ++attempt) {
        auto system = c->Get(kSystem);
        REQUIRE(system);
        httplib::Headers ifMatch = {{"If-Match", system->get_header_value("ETag")}};
        auto patched = c->Patch(kSystem, ifMatch, boot.dump(), "application/json");
        REQUIRE(patched);
        status = patched->status;
        if (status != 412) break;
      }
      REQUIRE(status == 204);
    }
    json body = {{"ResetType", "ForceRestart"}};
    auto reset = c->Post(std::string(kSystem) + "/Actions/ComputerSystem.Reset", body.dump(),
                         "application/json");
    REQUIRE(reset);
    REQUIRE(reset->status == 204);
  }
  HostStatus host() const { return fleet->hostStatus(bmc.id).value(); }
  bool agentExited() const { return host().agent.rfind("exited:", 0) == 0; }

  FakeBootService service;  // declared first: stopped after the fleet
  std::unique_ptr<Fleet> fleet;
  BmcEndpoint bmc;
};

std::string normalized(const std::string& mac) {
  return common::normalizeMac(mac).value();
}

std::vector<std::string> gpuSerials(const json& facts) {
  std::vector<std::string> serials;
  for (const auto& gpu : facts["gpus"]) serials.push_back(gpu["serial"].get<std::string>());
  return serials;
}

// hbm_bandwidth per GPU serial from a posted result.
std::map<std::string, double> hbmBySerial(const json& result) {
  std::map<std::string, double> out;
  for (const auto& m : result["measurements"]) {
    if (m["test"] == "hbm_bandwidth") out[m["gpu_serial"]] = m["value"].get<double>();
  }
  return out;
}

// The hosts' disks, removed with the test.
struct HostDisks {
  HostDisks() {
    char name[] = "/tmp/sim-host-disks.XXXXXX";
    REQUIRE(mkdtemp(name) != nullptr);
    path = name;
  }
  ~HostDisks() { std::filesystem::remove_all(path); }
  std::string path;
};

std::vector<std::string> batchSerials(const json& batch) {
  std::vector<std::string> serials;
  for (const auto& gpu : batch["gpus"]) serials.push_back(gpu["serial"].get<std::string>());
  return serials;
}

bool logHas(const HostStatus& host, const std::string& text) {
  return std::any_of(host.log.begin(), host.log.end(),
                     [&](const std::string& line) { return line.find(text) != std::string::npos; });
}

}  // namespace

TEST_CASE("A one-time PXE boot fetches script and artifacts and runs the agent", "[host]") {
  BootFleet f("127.29.0.1");
  f.reset("Pxe");
  REQUIRE(waitFor([&] { return !f.service.record().results.empty(); }, kAgentDeadline));
  REQUIRE(waitFor([&] { return f.agentExited(); }));
  auto record = f.service.record();
  REQUIRE(record.scriptMacs.size() == 1);
  CHECK(normalized(record.scriptMacs[0]) == normalized(f.bmc.identity.hostMacs.front()));
  CHECK(record.artifacts == std::vector<std::string>{"kernel", "initrd"});
  REQUIRE(record.registerTokens.size() == 1);
  CHECK(record.registerTokens[0] == record.mintedTokens.back());
  CHECK(record.invalid.empty());
  // The agent holds this node's GPUs, serial for serial, and its host identity.
  CHECK(gpuSerials(record.facts) == f.bmc.identity.gpuSerials);
  CHECK(record.facts["gpus"][0]["uuid"] == f.bmc.identity.gpuUuids[0]);
  CHECK(record.facts["host_serial"] == f.bmc.identity.systemSerial);
  CHECK(record.facts["nics"][0]["mac"] == normalized(f.bmc.identity.hostMacs.front()));
  CHECK(record.results[0]["measurements"].size() >= 8 * 5);
  HostStatus host = f.host();
  CHECK(host.boots == 1);
  CHECK(host.lastBoot == "network");
  CHECK(host.agent == "exited:0");
  CHECK(host.error.empty());
  for (const auto& line : host.log) CHECK(line.find("boot_tok_") == std::string::npos);
  json snapshot = f.fleet->snapshot(f.bmc.id).value();
  CHECK(snapshot["host"]["agent"] == "exited:0");
  CHECK(snapshot["host"]["last_boot"] == "network");
}

TEST_CASE("A GPU fault set through the control API shows in the posted measurements", "[host]") {
  BootFleet f("127.29.1.1");
  httplib::Client control("127.0.0.1", f.fleet->controlPort());
  json patch = {{"gpu_faults", {{{"gpu", 3}, {"kind", "low_hbm_bandwidth"}, {"factor", 0.5}}}}};
  auto put = control.Put("/bmcs/r01-n01/faults", patch.dump(), "application/json");
  REQUIRE(put);
  REQUIRE(put->status == 200);
  CHECK(json::parse(put->body)["gpu_faults"][0]["kind"] == "low_hbm_bandwidth");
  f.reset("Pxe");
  REQUIRE(waitFor([&] { return !f.service.record().results.empty(); }, kAgentDeadline));
  auto hbm = hbmBySerial(f.service.record().results[0]);
  REQUIRE(hbm.size() == 8);
  const auto& serials = f.bmc.identity.gpuSerials;
  for (std::size_t i = 0; i < serials.size(); ++i) {
    if (i == 3) {
      CHECK(hbm[serials[i]] < 0.6 * 2900);
    } else {
      CHECK(hbm[serials[i]] > 0.9 * 2900);
    }
  }
}

TEST_CASE("A kernel digest mismatch fails the boot and starts no agent", "[host]") {
  // The script starts over after a mismatch (max_script_retries 2: three tries), then gives up.
  BootFleet f("127.29.2.1", json::object(), 1000, 2);
  f.service.corruptKernel();
  f.reset("Pxe");
  REQUIRE(waitFor([&] { return !f.host().error.empty(); }));
  HostStatus host = f.host();
  CHECK(host.error.find("kernel checksum mismatch") != std::string::npos);
  CHECK(host.agent == "not_started");
  CHECK(host.imageRetries == 2);
  auto record = f.service.record();
  CHECK(record.artifacts == std::vector<std::string>{"kernel", "kernel", "kernel"});
  CHECK(record.registerTokens.empty());
}

TEST_CASE("A failed image download starts the script over and the same boot goes on", "[host]") {
  // What a replica killed under the host's download looks like from the host: the script's
  // retry loop asks the same address again (another replica answers) instead of the host
  // sitting there until the service's agent time-out boots it a second time.
  BootFleet f("127.29.2.65");
  f.service.failArtifacts(2);  // the kernel, then the kernel again
  f.reset("Pxe");
  REQUIRE(waitFor([&] { return !f.service.record().results.empty(); }, kAgentDeadline));
  HostStatus host = f.host();
  CHECK(host.boots == 1);
  CHECK(host.imageRetries == 2);
  CHECK(host.error.empty());
  auto record = f.service.record();
  CHECK(record.refusedArtifacts == 2);
  CHECK(record.artifacts == std::vector<std::string>{"kernel", "initrd"});
  CHECK(record.scriptMacs.size() == 1);  // the loop is the script's: it is not fetched again
  CHECK(record.registerTokens.size() == 1);
}

TEST_CASE("A wait-and-retry script makes the host ask again after the wait", "[host]") {
  BootFleet f("127.29.3.1");
  f.service.answerWaitScripts(2, 30);  // 30 simulated seconds: 30 ms at this time scale
  f.reset("Pxe");
  REQUIRE(waitFor([&] { return !f.service.record().results.empty(); }, kAgentDeadline));
  auto record = f.service.record();
  REQUIRE(record.scriptMacs.size() == 3);
  CHECK(normalized(record.scriptMacs[2]) == normalized(f.bmc.identity.hostMacs.front()));
  CHECK(f.host().scriptFetches == 3);
}

TEST_CASE("The host gives up after max_script_retries wait scripts", "[host]") {
  BootFleet f("127.29.4.1", json::object(), 1000, 1);
  f.service.answerWaitScripts(5, 1);
  f.reset("Pxe");
  REQUIRE(waitFor([&] { return !f.host().error.empty(); }));
  CHECK(f.host().error.find("no boot script after 2 attempt(s)") != std::string::npos);
  CHECK(f.service.record().scriptMacs.size() == 2);
  CHECK(f.service.record().artifacts.empty());
}

TEST_CASE("A node that ignores the boot override boots its disk and fetches nothing", "[host]") {
  BootFleet f("127.29.5.1", {{"ignore_boot_override", true}});
  f.reset("Pxe");
  // The boot event is delivered before the reset is answered; a disk boot starts no thread.
  HostStatus host = f.host();
  CHECK(host.boots == 1);
  CHECK(host.lastBoot == "disk");
  CHECK(host.agent == "not_started");
  CHECK(f.service.record().scriptMacs.empty());
}

TEST_CASE("A reset without a boot override boots the disk and fetches nothing", "[host]") {
  BootFleet f("127.29.6.1");
  f.reset("");
  CHECK(f.host().boots == 1);
  CHECK(f.host().lastBoot == "disk");
  f.reset("Hdd");
  CHECK(f.host().boots == 2);
  CHECK(f.host().lastBoot == "disk");
  CHECK(f.service.record().scriptMacs.empty());
}

TEST_CASE("A local-disk script makes the host boot its disk", "[host]") {
  BootFleet f("127.29.7.1");
  f.service.answerLocalDisk();
  f.reset("Pxe");
  REQUIRE(waitFor([&] { return f.host().lastBoot == "disk"; }));
  CHECK(f.host().scriptFetches == 1);
  CHECK(f.host().error.empty());
  CHECK(f.service.record().artifacts.empty());
  CHECK(f.service.record().registerTokens.empty());
}

TEST_CASE("A newer boot supersedes a running agent and stopping the fleet is safe", "[host]") {
  // Time scale 10: the burn-in would take 40 s, so the first agent is still running.
  BootFleet f("127.29.8.1", json::object(), 10);
  f.reset("Pxe");
  REQUIRE(waitFor([&] { return f.service.record().registerTokens.size() == 1; }, kAgentDeadline));
  REQUIRE(f.host().agent == "running");
  f.reset("Pxe");
  REQUIRE(waitFor([&] { return f.service.record().registerTokens.size() == 2; }, kAgentDeadline));
  auto record = f.service.record();
  CHECK(record.registerTokens[1] == record.mintedTokens[1]);
  CHECK(f.host().boots == 2);
  CHECK(f.host().agent == "running");
  f.fleet->stop();  // both agents are told the host is gone; their threads are joined
  CHECK(f.host().boots == 2);
}

TEST_CASE("Boot settings and GPU faults in the fleet file are validated by field", "[host]") {
  auto parse = [](const std::string& text) { return parseFleetSpec(json::parse(text)); };
  auto good = parse(R"({"boot": {"service_url": "http://127.0.0.1:8080/", "ca_file": "/ca.pem",
    "max_script_retries": 3}, "racks": [{"name": "r01", "nodes": 2, "profile": "dgx-h100",
    "node_faults": {"2": {"gpu_faults": [{"gpu": 3, "kind": "low_hbm_bandwidth",
    "factor": 0.8}]}}}]})");
  REQUIRE(good);
  CHECK(good->boot.serviceUrl == "http://127.0.0.1:8080");
  CHECK(good->boot.caFile == "/ca.pem");
  CHECK(good->boot.maxScriptRetries == 3);
  REQUIRE(good->racks[0].nodeFaults.at(2).host.gpuFaults.size() == 1);
  CHECK(good->racks[0].nodeFaults.at(2).host.gpuFaults[0].factor == 0.8);
  CHECK(good->racks[0].faults.host.gpuFaults.empty());

  auto badUrl = parse(R"({"boot": {"service_url": "ftp://x"}, "racks": [
    {"name": "r01", "nodes": 1, "profile": "dgx-h100"}]})");
  REQUIRE_FALSE(badUrl);
  CHECK(badUrl.error().field == "boot.service_url");
  auto unknown = parse(R"({"boot": {"url": "http://x"}, "racks": [
    {"name": "r01", "nodes": 1, "profile": "dgx-h100"}]})");
  REQUIRE_FALSE(unknown);
  CHECK(unknown.error().field == "boot.url");
  auto disks = parse(R"({"boot": {"host_state_dir": "/var/sim", "monitor_interval_seconds": 5},
    "racks": [{"name": "r01", "nodes": 1, "profile": "dgx-h100"}]})");
  REQUIRE(disks);
  CHECK(disks->boot.hostStateDir == "/var/sim");
  CHECK(disks->boot.monitorIntervalSeconds == 5);
  CHECK(disks->boot.healthClockScale == 0);  // the real clock unless asked
  auto clock = parse(R"({"boot": {"health_clock": {"epoch": 1796677537, "scale": 2880}},
    "racks": [{"name": "r01", "nodes": 1, "profile": "dgx-h100"}]})");
  REQUIRE(clock);
  CHECK(clock->boot.healthClockEpoch == 1796677537);
  CHECK(clock->boot.healthClockScale == 2880);
  for (const auto& [text, field] : std::vector<std::pair<std::string, std::string>>{
           {R"({"scale": 2880})", "boot.health_clock.epoch"},
           {R"({"epoch": -1, "scale": 2880})", "boot.health_clock.epoch"},
           {R"({"epoch": 1796677537, "scale": 0.5})", "boot.health_clock.scale"},
           {R"({"epoch": 1796677537})", "boot.health_clock.scale"},
           {R"({"epoch": 1796677537, "scale": 2880, "speed": 2})", "boot.health_clock.speed"},
           {R"("fast")", "boot.health_clock"}}) {
    auto bad = parse(R"({"boot": {"health_clock": )" + text +
                     R"(}, "racks": [{"name": "r01", "nodes": 1, "profile": "dgx-h100"}]})");
    REQUIRE_FALSE(bad);
    CHECK(bad.error().field == field);
  }
  auto interval = parse(R"({"boot": {"monitor_interval_seconds": 0}, "racks": [
    {"name": "r01", "nodes": 1, "profile": "dgx-h100"}]})");
  REQUIRE_FALSE(interval);
  CHECK(interval.error().field == "boot.monitor_interval_seconds");
  auto retries = parse(R"({"boot": {"max_script_retries": -1}, "racks": [
    {"name": "r01", "nodes": 1, "profile": "dgx-h100"}]})");
  REQUIRE_FALSE(retries);
  CHECK(retries.error().field == "boot.max_script_retries");
  auto kind = parse(R"({"racks": [{"name": "r01", "nodes": 1, "profile": "dgx-h100",
    "faults": {"gpu_faults": [{"gpu": 1, "kind": "low_hbm"}]}}]})");
  REQUIRE_FALSE(kind);
  CHECK(kind.error().field == "racks[0].faults.gpu_faults[0].kind");
  auto gpu =
      applyFaultsJson({}, json::parse(R"({"gpu_faults": [{"gpu": 99, "kind": "missing"}]})"));
  REQUIRE_FALSE(gpu);
  CHECK(gpu.error().field == "gpu_faults[0].gpu");
  CHECK(gpu.error().message.find("gpu_faults[0].gpu") != std::string::npos);
  auto cleared =
      applyFaultsJson(good->racks[0].nodeFaults.at(2), json::parse(R"({"gpu_faults": null})"));
  REQUIRE(cleared);
  CHECK(cleared->host.gpuFaults.empty());
}

TEST_CASE("A wipe fault set through the control API keeps its count", "[host]") {
  BootFleet f("127.29.1.9");
  httplib::Client control("127.0.0.1", f.fleet->controlPort());
  json patch = {{"gpu_faults", {{{"gpu", 2}, {"kind", "stuck_bits"}, {"count", 3}}}}};
  auto put = control.Put("/bmcs/r01-n01/faults", patch.dump(), "application/json");
  REQUIRE(put);
  REQUIRE(put->status == 200);
  auto fault = json::parse(put->body)["gpu_faults"][0];
  CHECK(fault["kind"] == "stuck_bits");
  CHECK(fault["count"] == 3);
}

TEST_CASE("A booted host wipes its GPUs and drives and reports the stuck bits it found", "[host]") {
  BootFleet f("127.29.1.10");
  httplib::Client control("127.0.0.1", f.fleet->controlPort());
  json patch = {{"gpu_faults", {{{"gpu", 2}, {"kind", "stuck_bits"}, {"count", 3}}}}};
  REQUIRE(control.Put("/bmcs/r01-n01/faults", patch.dump(), "application/json")->status == 200);
  f.service.answerWipeTask(42);
  f.reset("Pxe");
  REQUIRE(waitFor([&] { return !f.service.record().results.empty(); }, kAgentDeadline));
  const json wipe = f.service.record().results[0]["wipe"];
  INFO(wipe.dump());
  REQUIRE(wipe["gpus"].size() == 8);
  const auto& serials = f.bmc.identity.gpuSerials;
  for (std::size_t i = 0; i < serials.size(); ++i) {
    CHECK(wipe["gpus"][i]["gpu_serial"] == serials[i]);
    CHECK((wipe["gpus"][i]["mismatches"].get<std::uint64_t>() > 0) == (i == 2));
  }
  REQUIRE(wipe["drives"].size() == 2);
  for (const auto& drive : wipe["drives"]) CHECK(drive["result"] == "passed");
}

TEST_CASE("After its burn-in a host reboots into its disk and runs the resident monitor",
          "[host]") {
  HostDisks disks;
  // GPU 2 degrades: at time scale 1000 a real second is 1,000 simulated seconds.
  json faults = {{"gpu_faults", {{{"gpu", 2}, {"kind", "ecc_growth"}, {"per_day", 100000}}}}};
  BootFleet f("127.29.12.1", faults, 1000, 20, disks.path);
  f.reset("Pxe");
  REQUIRE(waitFor([&] { return f.service.record().healthBatches.size() >= 2; }, kAgentDeadline));
  CHECK(f.service.record().results.size() == 1);  // the burn-in ran first,
  CHECK(f.service.record().enrolments == 1);      // enrolled the node's monitor,
  CHECK(std::filesystem::exists(agent::monitorEndpointPath(disks.path + "/r01-n01")));
  HostStatus host = f.host();
  CHECK(host.boots == 2);  // and the image rebooted into the installed OS
  CHECK(host.lastBoot == "disk");
  CHECK(host.agent == "monitor");
  CHECK(logHas(host, "reboots into the installed OS"));
  auto record = f.service.record();
  CHECK(record.healthRefused == 0);
  CHECK(record.invalid.empty());
  const json& first = record.healthBatches[0];
  const json& second = record.healthBatches[1];
  CHECK(batchSerials(first) == f.bmc.identity.gpuSerials);
  // The degrading GPU's corrected errors grow between batches; a healthy one's stay at zero.
  CHECK(second["gpus"][2]["ecc_corrected_volatile"].get<std::int64_t>() >
        first["gpus"][2]["ecc_corrected_volatile"].get<std::int64_t>());
  CHECK(second["gpus"][0]["ecc_corrected_volatile"] == 0);
  const std::string epoch = first["gpus"][0]["driver_epoch"];
  for (const auto& line : host.log) {
    CHECK(line.find(FakeBootService::kMonitorCredential) == std::string::npos);
  }

  // A reset without an override boots the disk again: a new boot, a new driver epoch.
  f.reset("");
  REQUIRE(waitFor(
      [&] {
        auto batches = f.service.record().healthBatches;
        return batches.back()["gpus"][0]["driver_epoch"] != epoch;
      },
      kAgentDeadline));
  CHECK(f.host().boots == 3);
  CHECK(f.service.record().enrolments == 1);
  const std::string secondEpoch =
      f.service.record().healthBatches.back()["gpus"][0]["driver_epoch"];

  // A network boot ends the OS and its monitor: the burn-in agent runs, and once the image has
  // rebooted into the disk again, only that boot's monitor reports.
  f.reset("Pxe");
  REQUIRE(waitFor([&] { return f.service.record().results.size() == 2; }, kAgentDeadline));
  CHECK(f.service.record().registerTokens.size() == 2);
  auto epochOf = [](const json& batch) {
    return batch["gpus"][0]["driver_epoch"].get<std::string>();
  };
  auto batchesOf = [&](const std::string& e) {
    auto batches = f.service.record().healthBatches;
    return std::count_if(batches.begin(), batches.end(),
                         [&](const json& b) { return epochOf(b) == e; });
  };
  REQUIRE(waitFor(
      [&] {
        const auto last = epochOf(f.service.record().healthBatches.back());
        return last != epoch && last != secondEpoch;
      },
      kAgentDeadline));
  const std::string thirdEpoch = epochOf(f.service.record().healthBatches.back());
  const auto earlier = batchesOf(epoch) + batchesOf(secondEpoch);
  REQUIRE(waitFor([&] { return batchesOf(thirdEpoch) >= 3; }, kAgentDeadline));
  CHECK(batchesOf(epoch) + batchesOf(secondEpoch) ==
        earlier);  // the earlier boots' monitors send nothing more
}

TEST_CASE("A host whose disk holds no enrolment boots it and runs no monitor", "[host]") {
  HostDisks disks;
  BootFleet f("127.29.13.1", json::object(), 1000, 20, disks.path);
  f.reset("");
  REQUIRE(waitFor([&] { return logHas(f.host(), "no resident monitor"); }));
  CHECK(f.host().lastBoot == "disk");
  CHECK(f.service.record().healthBatches.empty());
  CHECK(f.service.record().enrolments == 0);
}

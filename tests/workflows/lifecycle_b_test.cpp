// The second half of the node lifecycle against a simulated DGX H100 BMC over HTTP and a real
// PostgreSQL: configure (BIOS), firmware, imaging and burn-in, one step run at a time.
#include <atomic>
#include <thread>

#include <httplib.h>
#include <catch2/catch.hpp>

#include "inventory/agent_tasks.hpp"
#include "lifecycle/firmware_inventory.hpp"
#include "lifecycle/version_compare.hpp"
#include "lifecycle_b_bench.hpp"

namespace {

using lifecycle_b::Bench;
using lifecycle_b::BenchOptions;
using nlohmann::json;
using workflows::StepOutcome;
namespace lc = workflows::lifecycle;
using Kind = StepOutcome::Kind;
using std::chrono::hours;
using std::chrono::minutes;

const char* kBmcTarget = "/redfish/v1/UpdateService/FirmwareInventory/HostBMC_0";

BenchOptions firmwareOptions() {
  BenchOptions options;
  // HostBMC_0 reports 23.11.21; the simulator's update bumps the last number.
  options.min_firmware = json::array({{{"match", "hostbmc"},
                                       {"version", "23.11.22"},
                                       {"image_uri", "http://127.0.0.1:9/bmc.fwpkg"}}});
  return options;
}

std::size_t firmwareTasks(const Bench& bench) {
  return bench.snapshot()["tasks"].size();
}

// Serves the simulated package for HostBMC_0 23.11.22, failing its first `failures` downloads
// with HTTP 500 (a replica killed mid-download, as the BMC sees it).
struct FlakyImageServer {
  httplib::Server server;
  std::atomic<int> gets{0};
  std::thread serving;
  int port = 0;

  explicit FlakyImageServer(int failures) {
    server.Get("/bmc.fwpkg", [this, failures](const httplib::Request&, httplib::Response& res) {
      if (gets++ < failures) {
        res.status = 500;
        return;
      }
      res.set_content(R"({"version": "23.11.22"})", "application/octet-stream");
    });
    port = server.bind_to_any_port("127.0.0.1");
    serving = std::thread([this] { server.listen_after_bind(); });
  }
  ~FlakyImageServer() {
    server.stop();
    serving.join();
  }
  std::string uri() const { return "http://127.0.0.1:" + std::to_string(port) + "/bmc.fwpkg"; }
};

long countOf(const std::vector<std::string>& events, const std::string& kind) {
  return std::count(events.begin(), events.end(), kind);
}

}  // namespace

TEST_CASE("Firmware versions compare part by part", "[lifecycle_b][version]") {
  CHECK(lc::compareFirmwareVersions("2.72", "2.100") < 0);
  CHECK(lc::compareFirmwareVersions("01.01.03", "1.1.3") == 0);
  CHECK(lc::compareFirmwareVersions("1.2", "1.2.0") == 0);
  CHECK(lc::compareFirmwareVersions("1.2", "1.2.1") < 0);
  CHECK(lc::compareFirmwareVersions("23.11.22", "23.11.21") > 0);
  CHECK(lc::compareFirmwareVersions("P12", "P9") > 0);
  CHECK(lc::compareFirmwareVersions("1.0b", "1.0a") > 0);
  CHECK(lc::compareFirmwareVersions("96.00.61.00.01", "96.00.5A.00.01") > 0);
  CHECK(lc::compareFirmwareVersions("123456789012345678901234", "99") > 0);
  CHECK(lc::versionBelow("", "1.0"));
}

TEST_CASE("Configure applies only the difference and verifies it after the reset",
          "[lifecycle_b][configure]") {
  BenchOptions options;
  options.bios = {{"SriovSupport", "Disabled"}, {"TpmSupport", "Enable"}};  // TpmSupport is set
  Bench bench(options);

  auto patched = bench.run("configure", lc::configureStep);
  CHECK_OUTCOME(patched, Kind::kWait);
  CHECK(bench.data()["bios"]["applied"] == json({{"SriovSupport", "Disabled"}}));
  CHECK(bench.snapshot()["bios"]["pending"] == json({{"SriovSupport", "Disabled"}}));
  CHECK(bench.requestCount("POST", "ComputerSystem.Reset") == 0);  // intent persisted first

  auto reset = bench.run("configure", lc::configureStep);
  CHECK_OUTCOME(reset, Kind::kWait);
  CHECK(reset.waiting_for == "bios_applied");
  CHECK(bench.requestCount("POST", "Reset") == 1);
  CHECK(bench.snapshot()["bios"]["applied"]["SriovSupport"] == "Disabled");

  bench.advance(minutes(2));
  auto verified = bench.run("configure", lc::configureStep);
  CHECK_OUTCOME(verified, Kind::kNext);
  CHECK(verified.step == "firmware");
  CHECK(bench.nodeState() == "configured");
  CHECK(bench.requestCount("PATCH", "Bios") == 1);
}

TEST_CASE("Configure with nothing to change neither PATCHes nor resets",
          "[lifecycle_b][configure]") {
  BenchOptions options;
  options.bios = {{"TpmSupport", "Enable"}};
  Bench bench(options);
  auto outcome = bench.run("configure", lc::configureStep);
  CHECK_OUTCOME(outcome, Kind::kNext);
  CHECK(outcome.step == "firmware");
  CHECK(bench.requestCount("PATCH", "") == 0);
  CHECK(bench.requestCount("POST", "Reset") == 0);
  CHECK(bench.nodeState() == "configured");
}

TEST_CASE("Configure refuses a BIOS setting the registry does not allow",
          "[lifecycle_b][configure]") {
  SECTION("an attribute the registry does not know") {
    BenchOptions options;
    options.bios = {{"NoSuchKnob", "On"}};
    Bench bench(options);
    auto outcome = bench.run("configure", lc::configureStep);
    CHECK_OUTCOME(outcome, Kind::kFail);
    CHECK(outcome.reason == "bios_setting_invalid");
    CHECK(outcome.message.find("NoSuchKnob") != std::string::npos);
    CHECK(outcome.detail["attribute"] == "NoSuchKnob");
    CHECK(bench.requestCount("PATCH", "") == 0);
  }
  SECTION("a value outside the allowed ones") {
    BenchOptions options;
    options.bios = {{"SriovSupport", "Maybe"}};
    Bench bench(options);
    auto outcome = bench.run("configure", lc::configureStep);
    CHECK_OUTCOME(outcome, Kind::kFail);
    CHECK(outcome.reason == "bios_setting_invalid");
    CHECK(outcome.message.find("SriovSupport") != std::string::npos);
    CHECK(outcome.message.find("Enabled") != std::string::npos);
    CHECK(outcome.detail["allowed"] == json({"Disabled", "Enabled"}));
  }
}

TEST_CASE("Configure reports the BMC refusing a BIOS setting", "[lifecycle_b][configure]") {
  // The Lenovo BMC publishes no registry file: the BMC itself judges the values.
  BenchOptions options;
  options.profile = "lenovo-sr670v2";
  options.system_path = "/redfish/v1/Systems/1";
  options.bios = {{"DevicesandIOPorts_SerialPortAccessMode", 5}};
  Bench bench(options);
  auto outcome = bench.run("configure", lc::configureStep);
  CHECK_OUTCOME(outcome, Kind::kFail);
  CHECK(outcome.reason == "bios_setting_refused");
  CHECK(outcome.message.find("DevicesandIOPorts_SerialPortAccessMode") != std::string::npos);
  CHECK(bench.requestCount("POST", "Reset") == 0);
}

TEST_CASE("Firmware below the minimum is updated once and verified", "[lifecycle_b][firmware]") {
  Bench bench(firmwareOptions());
  auto planned = bench.run("firmware", lc::firmwareStep);
  CHECK_OUTCOME(planned, Kind::kWait);
  CHECK(bench.data()["firmware"]["target"] == kBmcTarget);
  CHECK(bench.data()["firmware"]["from"] == "23.11.21");
  CHECK(firmwareTasks(bench) == 0);  // the intent is persisted before anything is flashed
  CHECK(bench.nodeState() == "firmware");

  auto started = bench.run("firmware", lc::firmwareStep);
  CHECK_OUTCOME(started, Kind::kWait);
  CHECK(started.waiting_for == "firmware_task");
  CHECK(firmwareTasks(bench) == 1);
  auto still = bench.run("firmware", lc::firmwareStep);
  CHECK_OUTCOME(still, Kind::kWait);

  bench.advance(minutes(15));
  auto done = bench.run("firmware", lc::firmwareStep);
  CHECK_OUTCOME(done, Kind::kNext);
  CHECK(done.step == "imaging");
  CHECK(bench.data()["firmware"]["updated"][0]["to"] == "23.11.22");
  CHECK(firmwareTasks(bench) == 1);
  CHECK(bench.requestCount("POST", "SimpleUpdate") == 1);
}

TEST_CASE("A resumed firmware run with an update already running starts no second one",
          "[lifecycle_b][firmware]") {
  Bench bench(firmwareOptions());
  CHECK_OUTCOME(bench.run("firmware", lc::firmwareStep), Kind::kWait);
  CHECK_OUTCOME(bench.run("firmware", lc::firmwareStep), Kind::kWait);
  REQUIRE(firmwareTasks(bench) == 1);
  // A crash right after SimpleUpdate: the outcome naming the task was never written.
  bench.data()["firmware"].erase("task");
  bench.data()["firmware"].erase("started_at");

  auto resumed = bench.run("firmware", lc::firmwareStep);
  CHECK_OUTCOME(resumed, Kind::kWait);
  CHECK(resumed.waiting_for == "firmware_task");
  CHECK(std::count(bench.events().begin(), bench.events().end(), "firmware_update_adopted") == 1);
  bench.advance(minutes(15));
  CHECK_OUTCOME(bench.run("firmware", lc::firmwareStep), Kind::kNext);
  CHECK(firmwareTasks(bench) == 1);
  CHECK(bench.requestCount("POST", "SimpleUpdate") == 1);
}

TEST_CASE("An update whose BMC could not fetch the image is started again and flashed once",
          "[lifecycle_b][firmware]") {
  FlakyImageServer images(1);
  auto options = firmwareOptions();
  options.min_firmware[0]["image_uri"] = images.uri();
  Bench bench(options);
  CHECK_OUTCOME(bench.run("firmware", lc::firmwareStep), Kind::kWait);  // the intent
  CHECK_OUTCOME(bench.run("firmware", lc::firmwareStep), Kind::kWait);  // the update
  bench.advance(minutes(15));
  auto retried = bench.run("firmware", lc::firmwareStep);
  CHECK_OUTCOME(retried, Kind::kWait);
  CHECK(retried.waiting_for == "firmware_update");
  CHECK(countOf(bench.events(), "firmware_transfer_retried") == 1);
  CHECK(bench.data()["firmware"]["transfer_retries"] == 1);

  bench.advance(minutes(1));
  CHECK_OUTCOME(bench.run("firmware", lc::firmwareStep), Kind::kWait);  // started again
  bench.advance(minutes(15));
  auto done = bench.run("firmware", lc::firmwareStep);
  CHECK_OUTCOME(done, Kind::kNext);
  CHECK(bench.data()["firmware"]["updated"][0]["to"] == "23.11.22");
  CHECK(bench.requestCount("POST", "SimpleUpdate") == 2);
  CHECK(images.gets == 2);
}

TEST_CASE("An image the BMC can never fetch fails the step after the retries",
          "[lifecycle_b][firmware]") {
  FlakyImageServer images(100);
  auto options = firmwareOptions();
  options.min_firmware[0]["image_uri"] = images.uri();
  Bench bench(options);
  CHECK_OUTCOME(bench.run("firmware", lc::firmwareStep), Kind::kWait);
  StepOutcome last;
  for (int attempt = 0; attempt <= lc::kMaxImageTransferRetries; ++attempt) {
    CHECK_OUTCOME(bench.run("firmware", lc::firmwareStep), Kind::kWait);  // the update
    bench.advance(minutes(15));
    last = bench.run("firmware", lc::firmwareStep);
    if (last.kind == Kind::kFail) break;
    bench.advance(minutes(1));
  }
  CHECK_OUTCOME(last, Kind::kFail);
  CHECK(last.reason == "firmware_update_failed");
  CHECK(last.message.find("ResourceAtUriUnreachable") != std::string::npos);
  CHECK(bench.requestCount("POST", "SimpleUpdate") == 1 + lc::kMaxImageTransferRetries);
  CHECK(countOf(bench.events(), "firmware_transfer_retried") == lc::kMaxImageTransferRetries);
}

TEST_CASE("A hung firmware task times out", "[lifecycle_b][firmware]") {
  auto options = firmwareOptions();
  options.faults = {{"hung_tasks", true}};
  Bench bench(options);
  CHECK_OUTCOME(bench.run("firmware", lc::firmwareStep), Kind::kWait);
  CHECK_OUTCOME(bench.run("firmware", lc::firmwareStep), Kind::kWait);
  bench.advance(minutes(30));
  CHECK_OUTCOME(bench.run("firmware", lc::firmwareStep), Kind::kWait);
  bench.advance(minutes(31));
  auto timed_out = bench.run("firmware", lc::firmwareStep);
  CHECK_OUTCOME(timed_out, Kind::kFail);
  CHECK(timed_out.reason == "firmware_update_timeout");
  CHECK(bench.requestCount("POST", "SimpleUpdate") == 1);
}

TEST_CASE("Imaging creates one task and network-boots the host once per run",
          "[lifecycle_b][imaging]") {
  Bench bench;
  auto first = bench.run("imaging", lc::imagingStep);
  CHECK_OUTCOME(first, Kind::kNext);
  CHECK(first.step == "burn_in");
  auto open = inventory::openTaskForNode(bench.db(), bench.nodeId());
  REQUIRE(open.ok());
  REQUIRE(open->has_value());
  CHECK((*open)->batch.rfind("dc1/r01@", 0) == 0);
  CHECK((*open)->expected_gpus == 8);
  CHECK(bench.data()["imaging"]["task_id"] == (*open)->id);
  CHECK(bench.data()["imaging"]["boots"] == 1);
  CHECK(bench.nodeState() == "imaging");
  // The one-time override, then the reset that consumes it.
  const auto requests = bench.requests();
  auto patch = std::find(requests.begin(), requests.end(), "PATCH /redfish/v1/Systems/DGX");
  REQUIRE(patch != requests.end());
  CHECK(std::find_if(patch, requests.end(), [](const std::string& r) {
          return r.find("ComputerSystem.Reset") != std::string::npos;
        }) != requests.end());

  CHECK_OUTCOME(bench.run("imaging", lc::imagingStep), Kind::kNext);
  CHECK(bench.data()["imaging"]["task_id"] == (*open)->id);
  auto tasks = inventory::listTasksForNode(bench.db(), bench.nodeId());
  REQUIRE(tasks.ok());
  CHECK(tasks->size() == 1);
}

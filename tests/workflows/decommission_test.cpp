// A node's decommission against a simulated DGX H100 BMC over HTTP and a real PostgreSQL: the
// drive plan made before the boot, the agent's wipe report judged and recorded (the agent is
// played by calling what its result route calls), the out-of-band drive erases with their intent
// recorded first, the platform reset and the signed certificate; a GPU with stuck bits and a drive
// whose erase fails end the decommission failed naming the device; a run resumed after a crash
// erases every drive exactly once. Steps run one at a time, as the engine would run them.
#include <catch2/catch.hpp>

#include <algorithm>

#include "decommission_bench.hpp"
#include "workflows/decommission/certificate.hpp"

namespace {

using decommission_test::Decommission;
using decommission_test::describe;
using decommission_test::required;
using nlohmann::json;
using Kind = workflows::StepOutcome::Kind;
namespace dc = workflows::decommission;

}  // namespace

TEST_CASE("a decommission that passes ends retired with a signed certificate", "[decommission]") {
  Decommission d;
  auto wiped = d.throughWipe({});
  INFO(describe(wiped));
  INFO(d.bench.data().dump());
  REQUIRE(wiped.kind == Kind::kNext);
  REQUIRE(wiped.step == "drives");

  // The agent was told to skip exactly the drives the BMC erases.
  const auto task =
      required(inventory::getAgentTask(d.bench.db(), d.bench.data()["wipe"]["task_id"]));
  CHECK(task.kind == "wipe");
  const auto plan = required(agent::parseWipePlan(json::parse(task.spec_json)));
  CHECK(plan.seed == 42u);
  const json oob = d.oobDrives();
  REQUIRE(oob.size() > 0);
  CHECK(plan.skip_drive_serials.size() == oob.size());

  auto erased = d.drive("drives", dc::drivesStep);
  INFO(describe(erased));
  REQUIRE(erased.step == "platform_reset");
  CHECK(d.bench.requestCount("POST", "Drive.SecureErase") == oob.size());

  auto reset = d.run("platform_reset", dc::platformResetStep);
  INFO(describe(reset));
  REQUIRE(reset.step == "certify");
  CHECK(d.bench.data()["platform"]["bios"] == "done");
  CHECK(d.bench.data()["platform"].contains("secrets"));

  auto certified = d.run("certify", dc::certifyStep);
  INFO(describe(certified));
  REQUIRE(certified.kind == Kind::kSucceed);
  const auto record = d.record();
  CHECK(record.state == "succeeded");
  REQUIRE(record.certificate_id);
  const auto cert = required(inventory::getCertificate(d.bench.db(), *record.certificate_id));
  const auto verified =
      required(dc::verifyCertificate(cert.document, cert.signature, d.key.public_pem));
  CHECK(verified.decommission_id == std::to_string(d.id));
  const auto devices = required(inventory::listDeviceSanitizations(d.bench.db(), d.id));
  CHECK(verified.devices == devices.size());
  CHECK(devices.size() >= 8 + oob.size());
  CHECK(d.bench.nodeState() == "retired");
  const auto evidence = required(inventory::listEvidence(d.bench.db(), d.id));
  CHECK(evidence.size() == 1 + oob.size());  // the agent's report and each erase task
}

TEST_CASE("a GPU with stuck bits fails the decommission naming its serial, nothing signed",
          "[decommission]") {
  Decommission d;
  REQUIRE(d.run("drain", dc::drainStep).step == "wipe_boot");
  REQUIRE(d.run("wipe_boot", dc::wipeBootStep).step == "wipe_result");
  auto report = d.cleanReport();
  report.gpus[3].passes[1].mismatches = 12;
  const auto judged = d.agentReports(report);
  CHECK(judged.state == "failed");
  auto wiped = d.run("wipe_result", dc::wipeResultStep);
  INFO(describe(wiped));
  REQUIRE(wiped.kind == Kind::kFail);
  CHECK(wiped.message.find("GPU-SN-3") != std::string::npos);

  d.failWith("wipe_result", wiped);
  const auto record = d.record();
  CHECK(record.state == "failed");
  CHECK(record.failure_detail_json.find("GPU-SN-3") != std::string::npos);
  CHECK_FALSE(record.certificate_id);
  CHECK(required(inventory::listCertificatesForNode(d.bench.db(), d.bench.nodeId())).empty());
  CHECK(d.bench.nodeState() == "decommission_failed");
  CHECK(d.bench.requestCount("POST", "Drive.SecureErase") == 0);
}

TEST_CASE("an out-of-band drive erase that fails fails the decommission naming the drive",
          "[decommission]") {
  Decommission d;
  REQUIRE(d.throughWipe({}).step == "drives");
  d.bench.patchFaults({{"drive_erase_fails", true}});
  auto erased = d.drive("drives", dc::drivesStep);
  INFO(describe(erased));
  REQUIRE(erased.kind == Kind::kFail);
  const std::string serial = d.oobDrives()[0]["serial"];
  CHECK(erased.message.find(serial) != std::string::npos);
  CHECK(erased.detail["serial"] == serial);

  d.failWith("drives", erased);
  const auto record = d.record();
  CHECK(record.state == "failed");
  CHECK(record.failure_detail_json.find(serial) != std::string::npos);
  CHECK_FALSE(record.certificate_id);
  CHECK(d.bench.nodeState() == "decommission_failed");
}

TEST_CASE("a run resumed after a crash at a drive's intent erases it exactly once",
          "[decommission]") {
  Decommission d;
  REQUIRE(d.throughWipe({}).step == "drives");
  const json oob = d.oobDrives();
  auto first = d.run("drives", dc::drivesStep);
  INFO(describe(first));
  REQUIRE(first.kind == Kind::kWait);
  REQUIRE(d.bench.requestCount("POST", "Drive.SecureErase") == 1);
  // The replica died after the BMC took the erase but before its outcome was written: what
  // survives is the intent recordIntent() wrote, not the task it learnt.
  json& current = d.bench.data()["drives"]["current"];
  REQUIRE(current.contains("intent_at"));
  current.erase("task");
  current.erase("started_at");

  auto done = d.drive("drives", dc::drivesStep);
  INFO(describe(done));
  REQUIRE(done.step == "platform_reset");
  CHECK(d.bench.requestCount("POST", "Drive.SecureErase") == oob.size());
  const std::string serial = oob[0]["serial"];
  // The adopted erase was followed and verified like the others.
  const auto devices = required(inventory::listDeviceSanitizations(d.bench.db(), d.id));
  bool verified = false;
  for (const auto& dev : devices)
    verified = verified || (dev.serial == serial && dev.result == "passed");
  CHECK(verified);
  const auto& events = d.bench.events();
  CHECK(std::count(events.begin(), events.end(), "drive_erase_adopted") == 1);
  CHECK(std::count(events.begin(), events.end(), "drive_verified") ==
        static_cast<long>(oob.size()));
}

// The out-of-band sweep's decisions (workflows/health_sweep.hpp): which silent nodes are due under
// the caps, the BMC's readings as a batch, and the flags of what the BMC says and of silent GPUs.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "workflows/health_sweep.hpp"

using namespace workflows::health_sweep;
using inventory::HealthSweepNode;
using inventory::PlacedGpuReading;
using inventory::health::FlagAction;
using inventory::health::FlagSeverity;
using std::chrono::hours;
using std::chrono::minutes;
using std::chrono::seconds;

namespace {

const workflows::TimePoint kNow{hours(24 * 20000)};

inventory::health::Seconds ago(workflows::Duration d) {
  return std::chrono::time_point_cast<seconds>(kNow - d);
}

const SweepPolicy kPolicy{seconds(90), minutes(5), minutes(15)};

redfish::BmcGpuHealth gpu(std::string id, std::string serial) {
  redfish::BmcGpuHealth g;
  g.id = std::move(id);
  g.serialNumber = std::move(serial);
  g.status.health = "OK";
  g.lanesInUse = 16;
  g.maxLanes = 16;
  return g;
}

}  // namespace

TEST_CASE("sweep: only silent nodes, each BMC at most once per its interval, within the budget",
          "[health_sweep]") {
  std::vector<HealthSweepNode> nodes = {
      {1, "ready", ago(seconds(30)), std::nullopt, std::nullopt, true},     // its agent reports
      {2, "ready", ago(minutes(10)), std::nullopt, std::nullopt, true},     // silent, never swept
      {3, "ready", std::nullopt, std::nullopt, std::nullopt, true},         // never reported
      {4, "ready", ago(hours(1)), ago(minutes(2)), ago(minutes(2)), true},  // swept 2 min ago
      {5, "ready", ago(hours(1)), ago(minutes(6)), ago(minutes(6)), true},  // swept 6 min ago
      {6, "ready", ago(hours(1)), ago(minutes(10)), std::nullopt, false},   // unreachable 10 min
      {7, "ready", ago(hours(1)), ago(minutes(20)), std::nullopt, false},   // unreachable 20 min
  };
  // Never tried first (by id), then the least recently tried.
  CHECK(silentNodesDue(nodes, kNow, kPolicy, 10) == std::vector<std::int64_t>{2, 3, 7, 5});
  CHECK(silentNodesDue(nodes, kNow, kPolicy, 3) == std::vector<std::int64_t>{2, 3, 7});
  CHECK(silentNodesDue(nodes, kNow, kPolicy, 0).empty());
  // Exactly at the silence threshold a node counts as silent.
  std::vector<HealthSweepNode> edge = {
      {8, "ready", ago(seconds(90)), std::nullopt, std::nullopt, true}};
  CHECK(silentNodesDue(edge, kNow, kPolicy, 1) == std::vector<std::int64_t>{8});
}

TEST_CASE("sweep: the BMC's readings become one batch, each serial once", "[health_sweep]") {
  redfish::BmcNodeHealth health;
  auto a = gpu("GPU_SXM_1", "S1");
  a.temperatureC = 41.5;
  a.memoryTemperatureC = 47;
  a.powerW = 300;
  a.eccCorrected = 12;
  a.remappedUncorrectable = 2;
  a.pcieReplay = 9;
  a.pcieCorrectable = 31;
  a.pcieNonFatal = 1;
  a.pcieFatal = 0;
  a.remapPending = true;
  health.gpus = {a, gpu("GPU_SXM_1", "S1"), gpu("GPU_SXM_2", ""), gpu("GPU_SXM_3", "S3")};
  auto batch = bmcReadings(health, kNow);
  CHECK(batch.sampled_at == std::chrono::time_point_cast<seconds>(kNow));
  REQUIRE(batch.gpus.size() == 2);  // the duplicate and the serial-less GPU left out
  const auto& s = batch.gpus[0];
  CHECK(s.serial == "S1");
  CHECK(s.temperature_c == 41.5);
  CHECK(s.hbm_temperature_c == 47);
  CHECK(s.power_w == 300);
  using inventory::health::Counter;
  CHECK(s.counters[static_cast<std::size_t>(Counter::kEccCorrectedAggregate)] == 12u);
  CHECK(s.counters[static_cast<std::size_t>(Counter::kRemappedUncorrectable)] == 2u);
  CHECK(s.counters[static_cast<std::size_t>(Counter::kPcieReplayErrors)] == 9u);
  CHECK(s.counters[static_cast<std::size_t>(Counter::kPcieCorrectableErrors)] == 31u);
  CHECK(s.counters[static_cast<std::size_t>(Counter::kPcieNonFatalErrors)] == 1u);
  CHECK(s.counters[static_cast<std::size_t>(Counter::kPcieFatalErrors)] == 0u);
  CHECK_FALSE(s.counters[static_cast<std::size_t>(Counter::kEccCorrectedVolatile)]);
  CHECK(s.remap_pending);
  CHECK_FALSE(s.remap_failure);
  CHECK(batch.gpus[1].serial == "S3");
}

TEST_CASE("sweep: a healthy BMC raises nothing; a degraded GPU or PSU a flag in its words",
          "[health_sweep]") {
  redfish::BmcNodeHealth health;
  health.gpus = {gpu("GPU_SXM_1", "S1"), gpu("GPU_SXM_2", "S2"), gpu("GPU_SXM_3", "S3"),
                 gpu("GPU_SXM_4", "S4")};
  redfish::BmcPowerSupplyHealth psu;
  psu.name = "PSU1";
  psu.serialNumber = "P1";
  psu.status.health = "OK";
  health.powerSupplies = {psu};
  const auto silent_since = kNow - hours(2);
  CHECK(bmcFindings(42, health, silent_since).empty());

  health.gpus[1].status.health = "Critical";
  health.gpus[1].status.conditions = {"GPU_SXM_2 DRAM has detected Uncorrectable ECC errors."};
  health.gpus[2].lanesInUse = 0;  // Status still OK: fallen off the bus
  health.gpus[3].remapFailed = true;
  health.powerSupplies[0].status.healthRollup = "Warning";
  health.powerSupplies[0].status.conditions = {"Input voltage out of range"};
  auto flags = bmcFindings(42, health, silent_since);
  REQUIRE(flags.size() == 4);

  CHECK(flags[0].serial == "S2");
  CHECK(flags[0].rule == "bmc.gpu_health");
  CHECK(flags[0].severity == FlagSeverity::kCritical);
  CHECK(flags[0].action == FlagAction::kDrain);
  CHECK(flags[0].reason ==
        "BMC reports GPU GPU_SXM_2 health Critical: GPU_SXM_2 DRAM has detected Uncorrectable "
        "ECC errors.");
  CHECK(flags[0].node_id == 42);
  CHECK(flags[0].raised_at == std::chrono::time_point_cast<seconds>(silent_since));
  auto evidence = nlohmann::json::parse(flags[0].evidence_json);
  CHECK(evidence["source"] == "bmc");
  CHECK(evidence["status"]["health"] == "Critical");
  CHECK_FALSE(evidence["rule_source"].get<std::string>().empty());

  CHECK(flags[1].serial == "S3");
  CHECK(flags[1].rule == "bmc.gpu_off_bus");
  CHECK(flags[1].action == FlagAction::kDrain);
  CHECK(flags[1].reason ==
        "BMC reports GPU GPU_SXM_3 PCIe link at 0 of 16 lanes (Health OK): fallen off the bus");

  CHECK(flags[2].serial == "S4");
  CHECK(flags[2].rule == "bmc.remap_failure");
  CHECK(flags[2].action == FlagAction::kRmaCandidate);

  CHECK(flags[3].serial == "P1");
  CHECK(flags[3].rule == "bmc.psu_health");
  CHECK(flags[3].severity == FlagSeverity::kWarning);
  CHECK(flags[3].action == FlagAction::kWatch);
  CHECK(flags[3].reason ==
        "BMC reports power supply PSU1 health Warning: Input voltage out of range");
  CHECK(nlohmann::json::parse(flags[3].evidence_json)["component"] == "psu");
}

TEST_CASE("sweep: a GPU whose BMC counts fatal PCIe errors is drained", "[health_sweep]") {
  redfish::BmcNodeHealth health;
  auto g = gpu("GPU_SXM_5", "S5");
  g.pcieFatal = 2;
  g.pcieNonFatal = 7;
  auto quiet = gpu("GPU_SXM_6", "S6");
  quiet.pcieFatal = 0;
  quiet.pcieNonFatal = 3;  // non-fatal errors alone: stored, not flagged
  health.gpus = {g, quiet};
  const auto flags = bmcFindings(4, health, kNow);
  REQUIRE(flags.size() == 1);
  CHECK(flags[0].serial == "S5");
  CHECK(flags[0].rule == "bmc.pcie_fatal");
  CHECK(flags[0].severity == FlagSeverity::kCritical);
  CHECK(flags[0].action == FlagAction::kDrain);
  CHECK(flags[0].reason ==
        "BMC reports GPU GPU_SXM_5: 2 fatal PCIe error(s) (ProcessorMetrics PCIeErrors)");
  const auto evidence = nlohmann::json::parse(flags[0].evidence_json);
  CHECK(evidence["pcie_fatal_errors"] == 2);
  CHECK(evidence["pcie_nonfatal_errors"] == 7);
}

TEST_CASE("sweep: a warning GPU asks for a burn-in; a GPU without a serial cannot be flagged",
          "[health_sweep]") {
  redfish::BmcNodeHealth health;
  health.gpus = {gpu("GPU_SXM_1", "S1"), gpu("GPU_SXM_2", "")};
  health.gpus[0].status.health = "Warning";
  health.gpus[1].status.health = "Critical";
  redfish::BmcPowerSupplyHealth psu;
  psu.name = "PSU 2";
  psu.status.health = "Critical";
  health.powerSupplies = {psu};
  auto flags = bmcFindings(7, health, kNow);
  REQUIRE(flags.size() == 2);
  CHECK(flags[0].severity == FlagSeverity::kWarning);
  CHECK(flags[0].action == FlagAction::kRerunBurnIn);
  CHECK(flags[0].reason == "BMC reports GPU GPU_SXM_1 health Warning: no condition given");
  CHECK(flags[1].serial == "psu:7:PSU 2");  // a supply without a serial: by node and name
  CHECK(flags[1].severity == FlagSeverity::kCritical);
}

TEST_CASE("sweep: a GPU silent while its node's others report is flagged, not a silent node",
          "[health_sweep]") {
  std::vector<PlacedGpuReading> gpus = {
      {1, "A1", ago(seconds(20))}, {1, "A2", ago(seconds(25))},
      {1, "A3", ago(minutes(30))},  // silent for 30 min inside a reporting node
      {1, "A4", std::nullopt},      // never reported: not flagged (serials may not match)
      {2, "B1", ago(hours(2))},    {2, "B2", ago(hours(3))},  // the whole node is silent
  };
  auto flags = silentGpuFindings(gpus, kNow, seconds(90));
  REQUIRE(flags.size() == 1);
  CHECK(flags[0].serial == "A3");
  CHECK(flags[0].rule == "silent.gpu");
  CHECK(flags[0].severity == FlagSeverity::kCritical);
  CHECK(flags[0].action == FlagAction::kDrain);
  CHECK(flags[0].node_id == 1);
  CHECK(flags[0].reason ==
        "GPU A3 has sent no reading for 29 min while the other GPUs of node 1 report");
  // The evidence time is the GPU's last reading: a cleared flag stays cleared for this silence.
  CHECK(flags[0].raised_at == ago(minutes(30)));
  CHECK(nlohmann::json::parse(flags[0].evidence_json)["source"] == "agent");
}

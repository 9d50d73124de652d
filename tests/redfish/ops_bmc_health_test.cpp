// The out-of-band health read over recorded BMC dumps (exact values from the files) and its
// parsers over the degraded answers real BMCs give.
#include <algorithm>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "redfish/bmc_health.hpp"
#include "redfish/support/mockup_client.hpp"

using redfish::BmcGpuHealth;
using redfish::testing::MockupClient;
using redfish::testing::mockupDir;

namespace {

redfish::BmcNodeHealth readDump(const std::string& vendor) {
  MockupClient client(mockupDir(vendor));
  auto result = redfish::readBmcHealth(client);
  if (!result) FAIL(result.error().message);
  return std::move(result).value();
}

const BmcGpuHealth& gpuWithId(const redfish::BmcNodeHealth& health, const std::string& id) {
  auto it = std::find_if(health.gpus.begin(), health.gpus.end(),
                         [&](const BmcGpuHealth& gpu) { return gpu.id == id; });
  REQUIRE(it != health.gpus.end());
  return *it;
}

}  // namespace

TEST_CASE("bmc health of the DGX H100 dump: 8 HGX GPUs with sensors, ECC and remapping",
          "[ops][bmc_health]") {
  auto health = readDump("nvidia_viking");
  CHECK(health.warnings.empty());
  REQUIRE(health.gpus.size() == 8);
  const auto& gpu = gpuWithId(health, "GPU_SXM_1");
  CHECK(gpu.source == "processor");
  CHECK(gpu.serialNumber == "1652923003067");
  CHECK(gpu.model == "H100 80GB HBM3");
  CHECK(gpu.status.health == "OK");
  CHECK(gpu.status.state == "Enabled");
  CHECK(gpu.lanesInUse == 16);
  CHECK(gpu.maxLanes == 16);
  // ThermalMetrics readings are strings there ("26.781250"): TEMP_0 is the GPU, DRAM the HBM;
  // TEMP_1 (60, the margin to slowdown) is neither.
  REQUIRE(gpu.temperatureC);
  CHECK(*gpu.temperatureC == Approx(26.78125));
  REQUIRE(gpu.memoryTemperatureC);
  CHECK(*gpu.memoryTemperatureC == Approx(35.0));
  REQUIRE(gpu.powerW);
  CHECK(*gpu.powerW == Approx(71.706));
  CHECK(gpu.eccCorrected == 0u);
  CHECK(gpu.eccUncorrected == 0u);
  CHECK(gpu.remappedCorrectable == 0u);
  CHECK(gpu.remappedUncorrectable == 0u);
  CHECK(gpu.remapPending == false);
  CHECK(gpu.remapFailed == false);
  CHECK(gpu.pcieReplay == 0u);
  CHECK(gpu.pcieFatal == 0u);
  // The DGX host system and the HGX baseboard, both OK; the DGX chassis' six power supplies.
  REQUIRE(health.systems.size() == 2);
  CHECK(health.systems[0].health == "OK");
  CHECK(health.powerSupplies.size() == 6);
  CHECK(health.powerSupplies[0].name == "PSU0");
  CHECK(health.powerSupplies[0].serialNumber == "DTHTCT23070SP");
}

TEST_CASE("bmc health of the Supermicro HGX dump: GPUs as PCIe devices, PSUs from Power",
          "[ops][bmc_health]") {
  auto health = readDump("supermicro");
  REQUIRE(health.gpus.size() == 8);
  const auto& gpu = gpuWithId(health, "GPU1");
  CHECK(gpu.source == "pcie_device");
  CHECK(gpu.serialNumber == "1652323019599");
  CHECK(gpu.status.health == "OK");
  CHECK(gpu.lanesInUse == 16);
  CHECK_FALSE(gpu.temperatureC);  // no per-GPU sensor the BMC ties to the GPU
  CHECK_FALSE(health.powerSupplies.empty());
  CHECK(health.powerSupplies[0].status.health == "OK");
}

TEST_CASE("bmc health of the Lenovo dump: GPU processors without a Status read as unknown",
          "[ops][bmc_health]") {
  auto health = readDump("lenovo");
  REQUIRE(health.gpus.size() == 8);
  const auto& gpu = gpuWithId(health, "GPU1");
  CHECK(gpu.serialNumber == "1325322005680");
  CHECK(gpu.status.health.empty());
  CHECK_FALSE(gpu.lanesInUse);
  REQUIRE(health.powerSupplies.size() == 4);
  CHECK(health.powerSupplies[3].name == "Power Supply 4");  // PowerSubsystem, not legacy Power
}

TEST_CASE("bmc health of the HPE dump: the system's Critical roll-up is read as worded",
          "[ops][bmc_health]") {
  auto health = readDump("hpe");
  REQUIRE_FALSE(health.systems.empty());
  CHECK(health.systems[0].health == "Critical");
  CHECK(health.gpus.empty());
}

TEST_CASE("an unreadable member is a warning and the read goes on", "[ops][bmc_health]") {
  MockupClient client(mockupDir("nvidia_viking"));
  client.script(redfish::Method::kGet,
                "/redfish/v1/Systems/HGX_Baseboard_0/Processors/GPU_SXM_3/ProcessorMetrics",
                redfish::testing::redfishError(500, "Base.1.0.InternalError", "boom"));
  auto result = redfish::readBmcHealth(client);
  REQUIRE(result);
  CHECK(result->gpus.size() == 8);
  REQUIRE(result->warnings.size() == 1);
  CHECK(result->warnings[0].find("GPU_SXM_3/ProcessorMetrics") != std::string::npos);
}

TEST_CASE("an unreadable service root fails the read", "[ops][bmc_health]") {
  MockupClient client(mockupDir("nvidia_viking"));
  client.script(redfish::Method::kGet, "/redfish/v1",
                redfish::testing::redfishError(503, "Base.1.0.ServiceTemporarilyUnavailable", "x"));
  CHECK_FALSE(redfish::readBmcHealth(client));
}

TEST_CASE("parsers read a degraded GPU as its BMC words it", "[ops][bmc_health]") {
  auto processor = nlohmann::json::parse(R"({
    "@odata.id": "/redfish/v1/Systems/HGX_Baseboard_0/Processors/GPU_SXM_4",
    "Id": "GPU_SXM_4", "ProcessorType": "GPU", "SerialNumber": "1652923003070",
    "Status": {"Health": "Critical", "State": "Enabled", "Conditions": [
      {"MessageId": "ResourceEvent.1.0.ResourceErrorsDetected",
       "Message": "The resource property GPU_SXM_4 DRAM has detected errors of type Uncorrectable ECC."},
      {"MessageId": "Base.1.0.Only"}]},
    "SystemInterface": {"PCIe": {"LanesInUse": 0, "MaxLanes": 16}}})");
  auto gpu = redfish::parseGpuProcessor(processor);
  REQUIRE(gpu);
  CHECK(gpu->status.health == "Critical");
  REQUIRE(gpu->status.conditions.size() == 2);
  CHECK(gpu->status.conditions[0].find("Uncorrectable ECC") != std::string::npos);
  CHECK(gpu->status.conditions[1] == "Base.1.0.Only");  // no Message: the MessageId
  CHECK(gpu->lanesInUse == 0);

  redfish::applyGpuMemory(nlohmann::json::parse(
                              R"({"Oem": {"Nvidia": {"RowRemappingFailed": true,
                                  "RowRemappingPending": true}}})"),
                          *gpu);
  CHECK(gpu->remapFailed == true);
  CHECK(gpu->remapPending == true);
  redfish::applyMemoryMetrics(
      nlohmann::json::parse(R"({"LifeTime": {"CorrectableECCErrorCount": 812,
        "UncorrectableECCErrorCount": -1},
        "Oem": {"Nvidia": {"RowRemapping": {"CorrectableRowRemappingCount": 3,
        "UncorrectableRowRemappingCount": "x"}}}})"),
      *gpu);
  CHECK(gpu->eccCorrected == 812u);
  CHECK_FALSE(gpu->eccUncorrected);  // negative: not a count
  CHECK(gpu->remappedCorrectable == 3u);
  CHECK_FALSE(gpu->remappedUncorrectable);

  redfish::applyThermalMetrics(nlohmann::json::parse(R"({"TemperatureReadingsCelsius": [
      {"DataSourceUri": "/x/Sensors/A_TEMP_1", "Reading": 12},
      {"DataSourceUri": "/x/Sensors/A_TEMP_0", "Reading": "nan"},
      {"DataSourceUri": "/x/Sensors/Inlet", "Reading": 41.5}]})"),
                               *gpu);
  REQUIRE(gpu->temperatureC);  // TEMP_0 unreadable: the first other, never the margin
  CHECK(*gpu->temperatureC == Approx(41.5));
  CHECK_FALSE(gpu->memoryTemperatureC);

  auto cpu = nlohmann::json::parse(R"({"ProcessorType": "CPU", "Id": "1"})");
  CHECK_FALSE(redfish::parseGpuProcessor(cpu));
  auto nic = nlohmann::json::parse(R"({"Id": "NIC1", "Description": "NIC Device 1"})");
  CHECK_FALSE(redfish::parseGpuPcieDevice(nic));
}

// The inventory crawl over every recorded BMC dump: exact values from the files.
#include <algorithm>
#include <fstream>
#include <catch2/catch.hpp>
#include <memory>
#include <nlohmann/json.hpp>

#include "redfish/crawl.hpp"
#include "redfish/drives.hpp"
#include "redfish/support/mockup_client.hpp"

using redfish::testing::ExpandMode;
using redfish::testing::MockupClient;
using redfish::testing::mockupDir;

namespace {

redfish::Inventory crawlDump(const std::string& vendor, ExpandMode mode = ExpandMode::kRefuse) {
  auto client = std::make_shared<MockupClient>(mockupDir(vendor), mode);
  auto result = redfish::crawlInventory(client);
  if (!result) FAIL(result.error().message);
  return std::move(result).value();
}

std::size_t countGpus(const redfish::System& system) {
  return static_cast<std::size_t>(
      std::count_if(system.processors.begin(), system.processors.end(),
                    [](const redfish::Processor& p) { return p.type == "GPU"; }));
}

const redfish::PcieDevice* pcie(const redfish::Inventory& inventory, const std::string& id) {
  for (const auto& device : inventory.pcieDevices) {
    if (device.id == id) return &device;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("crawl dell R750 dump", "[ops][crawl]") {
  auto inventory = crawlDump("dell");
  CHECK(inventory.service.vendor == "Dell");
  REQUIRE(inventory.systems.size() == 1);
  const auto& system = inventory.systems[0];
  CHECK(system.id == "System.Embedded.1");
  CHECK(system.serialNumber == "CNIVC0014M0388");
  CHECK(system.model == "PowerEdge R750");
  CHECK(system.powerState == "On");
  CHECK(system.biosVersion == "1.8.2");
  CHECK(countGpus(system) == 1);
  CHECK(inventory.firmware.size() == 29);
  REQUIRE(inventory.managers.size() == 1);
  CHECK(inventory.managers[0].firmwareVersion == "6.00.30.00");
  CHECK_FALSE(inventory.managers[0].macs.empty());
  REQUIRE(inventory.chassis.size() == 2);
  CHECK(inventory.chassis[1].id == "System.Embedded.1");
  CHECK(inventory.chassis[1].partNumber == "0WMWCRA01");
}

TEST_CASE("crawl hpe DL385 dump", "[ops][crawl]") {
  auto inventory = crawlDump("hpe");
  REQUIRE(inventory.systems.size() == 1);
  CHECK(inventory.systems[0].serialNumber == "MXQ302099S");
  CHECK(inventory.systems[0].processors.size() == 2);
  CHECK(inventory.firmware.size() == 48);
  std::size_t drives = 0;
  for (const auto& storage : inventory.systems[0].storage) drives += storage.drives.size();
  CHECK(drives == 18);
}

TEST_CASE("crawl lenovo SR670 dump: 8 GPUs named by their PCIe devices", "[ops][crawl]") {
  auto inventory = crawlDump("lenovo");
  REQUIRE(inventory.systems.size() == 1);
  const auto& system = inventory.systems[0];
  CHECK(system.serialNumber == "J105958B");
  CHECK(countGpus(system) == 8);
  CHECK(inventory.gpus.size() == 8);
  for (const auto& gpu : inventory.gpus) CHECK(gpu.model == "NVIDIA L40");
  CHECK(inventory.gpus[0].serialNumber == "1325322005680");
  CHECK(inventory.gpus[0].firmwareVersion == "95.02.39.00.01");
  CHECK(inventory.firmware.size() == 43);
}

TEST_CASE("crawl supermicro HGX dump: GPUs as PCIe devices", "[ops][crawl]") {
  auto inventory = crawlDump("supermicro");
  REQUIRE(inventory.systems.size() == 1);
  CHECK(inventory.systems[0].serialNumber == "S889914X3710910");
  CHECK(inventory.service.vendor == "supermicro");
  CHECK(inventory.firmware.size() == 106);
  REQUIRE(inventory.gpus.size() == 8);
  for (const auto& gpu : inventory.gpus) {
    CHECK(gpu.model == "H100 80GB HBM3");
    CHECK(gpu.source == "pcie_device");
  }
  CHECK(inventory.gpus[0].id == "GPU1");
  CHECK(inventory.gpus[0].serialNumber == "1652323019599");
  const auto* gpu1 = pcie(inventory, "GPU1");
  REQUIRE(gpu1 != nullptr);
  CHECK(gpu1->currentLinkWidth == 16);
  CHECK(gpu1->maxLinkWidth == 16);
  CHECK(gpu1->currentGeneration == "Gen5");
  CHECK(gpu1->maxGeneration == "Gen5");
}

TEST_CASE("crawl nvidia DGX H100 dump: two systems and 8 SXM GPUs", "[ops][crawl]") {
  auto inventory = crawlDump("nvidia_viking");
  REQUIRE(inventory.systems.size() == 2);
  CHECK(inventory.systems[0].id == "DGX");
  CHECK(inventory.systems[0].serialNumber == "1662923610124");
  CHECK(inventory.systems[1].id == "HGX_Baseboard_0");
  CHECK(countGpus(inventory.systems[1]) == 8);
  REQUIRE(inventory.gpus.size() == 8);
  CHECK(inventory.gpus[0].id == "GPU_SXM_1");
  CHECK(inventory.gpus[0].model == "H100 80GB HBM3");
  CHECK(inventory.gpus[0].serialNumber == "1652923003067");
  CHECK(inventory.gpus[7].serialNumber == "1652923001497");
  CHECK(inventory.firmware.size() == 66);
  CHECK(inventory.managers.size() == 3);
}

TEST_CASE("DGX H100 drives are found through the chassis, its StorageCollection being empty",
          "[ops][drives]") {
  MockupClient client(mockupDir("nvidia_viking"));
  auto drives = redfish::listDrives(client, "/redfish/v1/Systems/DGX");
  REQUIRE(drives.ok());
  // Chassis/DGX links 15 drives (10 NVMe namespaces, 5 USB); Storage lists none.
  REQUIRE(drives->size() == 15);
  auto nvme = std::count_if(drives->begin(), drives->end(), [](const redfish::DriveInfo& d) {
    return d.odataId.find("/NVMe_Device") != std::string::npos;
  });
  CHECK(nvme == 10);
  CHECK(drives->front().odataId ==
        "/redfish/v1/Systems/DGX/Storage/StorageUnit_0/Drives/NVMe_Device0_NSID1");
  // The recorded drives offer no SecureErase: the workflow must see that, not an empty list.
  CHECK(std::none_of(drives->begin(), drives->end(),
                     [](const redfish::DriveInfo& d) { return d.secureEraseOffered; }));
}

TEST_CASE("a drive linked from both Storage and its chassis is listed once", "[ops][drives]") {
  const std::string dir = mockupDir("dell");
  const std::string chassis = "/redfish/v1/Chassis/System.Embedded.1";
  const std::string bay0 =
      "/redfish/v1/Systems/System.Embedded.1/Storage/CPU.1/Drives/Disk.Bay.0:Enclosure.Internal.0-1";
  MockupClient recorded(dir);
  auto plain = redfish::listDrives(recorded, "/redfish/v1/Systems/System.Embedded.1");
  REQUIRE(plain.ok());
  REQUIRE(plain->size() == 3);  // Storage CPU.1's three bays; the chassis links none

  std::ifstream file(dir + chassis + "/index.json");
  auto body = nlohmann::json::parse(file);
  body["Links"]["Drives"] = nlohmann::json::array({{{"@odata.id", bay0}}});
  MockupClient both(dir);
  both.script(redfish::Method::kGet, chassis, redfish::testing::jsonResponse(200, body));
  auto listed = redfish::listDrives(both, "/redfish/v1/Systems/System.Embedded.1");
  REQUIRE(listed.ok());
  CHECK(listed->size() == 3);
}

TEST_CASE("crawl with expand gives the same inventory in fewer requests", "[ops][crawl]") {
  auto plainClient = std::make_shared<MockupClient>(mockupDir("dell"), ExpandMode::kRefuse);
  auto expandClient = std::make_shared<MockupClient>(mockupDir("dell"), ExpandMode::kExpand);
  auto plain = redfish::crawlInventory(plainClient);
  auto expanded = redfish::crawlInventory(expandClient);
  REQUIRE(plain);
  REQUIRE(expanded);
  CHECK(redfish::toJson(*plain) == redfish::toJson(*expanded));
  CHECK(expandClient->count() < plainClient->count() / 2);
}

TEST_CASE("crawl counts its requests and keeps its window of requests in flight", "[ops][crawl]") {
  auto client = std::make_shared<MockupClient>(mockupDir("supermicro"), ExpandMode::kExpand);
  redfish::CrawlOptions options;
  options.stats = std::make_shared<redfish::CrawlStats>();
  options.maxInFlight = 2;
  auto result = redfish::crawlInventory(client, options);
  REQUIRE(result);
  CHECK(options.stats->requests.load() == client->count());
  CHECK(client->maxInFlight() == 2);

  auto unbounded = std::make_shared<MockupClient>(mockupDir("supermicro"), ExpandMode::kExpand);
  options.maxInFlight = 0;
  REQUIRE(redfish::crawlInventory(unbounded, options));
  CHECK(unbounded->maxInFlight() > 2);
}

TEST_CASE("crawl of the DGX dump warns only about resources the dump lacks", "[ops][crawl]") {
  auto inventory = crawlDump("nvidia_viking");
  for (const auto& warning : inventory.warnings) {
    INFO(warning);
    CHECK(warning.find("HTTP 404") != std::string::npos);
  }
}

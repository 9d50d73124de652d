// The out-of-band health read (bmc_health.hpp): follows links from the service root, never builds
// a path by hand, and reads each resource once.
#include "redfish/bmc_health.hpp"

#include <algorithm>
#include <set>

#include "ops/http_util.hpp"
#include "redfish/json.hpp"

namespace redfish {
namespace {

class HealthReader {
 public:
  explicit HealthReader(Client& client) : client_(client) {}

  common::Result<BmcNodeHealth> read() {
    PROV_ASSIGN(auto root, get("/redfish/v1"));
    auto systems_path = odataLink(root, "Systems");
    if (!systems_path) return ops::notSupported("the service root links no Systems");
    PROV_ASSIGN(auto systems, get(*systems_path));
    std::vector<std::string> chassis;
    for (const auto& link : memberLinks(systems)) readSystem(link, chassis);
    // Only a service whose processors showed no GPU at all (Supermicro HGX) is asked for its
    // chassis' PCIe devices: a DGX's host system has none among its CPUs, its HGX system has 8.
    bool gpus_from_pcie = health_.gpus.empty();
    for (const auto& link : chassis) readChassis(link, gpus_from_pcie);
    return std::move(health_);
  }

 private:
  common::Result<Json> get(const std::string& path) {
    ++health_.requests;
    PROV_ASSIGN(auto resource, ops::getResource(client_, path));
    return std::move(resource.body);
  }

  // A member that cannot be read is a warning: the rest of the node is still worth reading.
  std::optional<Json> tryGet(const std::string& path) {
    auto body = get(path);
    if (body) return std::move(body).value();
    health_.warnings.push_back(path + ": " + body.error().message);
    return std::nullopt;
  }

  std::optional<Json> tryGetLink(const Json& object, std::string_view key) {
    auto link = odataLink(object, key);
    if (!link) return std::nullopt;
    return tryGet(*link);
  }

  void readSystem(const std::string& path, std::vector<std::string>& allChassis) {
    auto system = tryGet(path);
    if (!system) return;
    health_.systems.push_back(parseHealthStatus(*system));
    auto chassis = linksOf(*system, "Chassis");
    if (auto processors = tryGetLink(*system, "Processors")) {
      for (const auto& link : memberLinks(*processors)) readProcessor(link, chassis);
    }
    for (auto& link : chassis) {
      if (std::find(allChassis.begin(), allChassis.end(), link) == allChassis.end())
        allChassis.push_back(std::move(link));
    }
  }

  // Links.<key> as an array of links or (Processor.Links.Chassis) a single one.
  static std::vector<std::string> linksOf(const Json& resource, std::string_view key) {
    const Json* links = member(resource, "Links");
    if (links == nullptr || !links->is_object()) return {};
    if (auto single = odataLink(*links, key)) return {*single};
    return memberLinks(*links, key);
  }

  void readProcessor(const std::string& path, const std::vector<std::string>& systemChassis) {
    auto body = tryGet(path);
    if (!body) return;
    auto gpu = parseGpuProcessor(*body);
    if (!gpu) return;
    readGpuMemory(*body, *gpu);
    if (auto metrics = tryGetLink(*body, "Metrics")) applyProcessorMetrics(*metrics, *gpu);
    readGpuChassis(*body, systemChassis, *gpu);
    health_.gpus.push_back(std::move(*gpu));
  }

  // The DRAM Memory resources the GPU links (remap state; their metrics: lifetime ECC and remap
  // counts), else the processor's MemorySummary metrics.
  void readGpuMemory(const Json& processor, BmcGpuHealth& gpu) {
    bool metrics_read = false;
    for (const auto& link : linksOf(processor, "Memory")) {
      auto memory = tryGet(link);
      if (!memory) continue;
      applyGpuMemory(*memory, gpu);
      if (auto metrics = tryGetLink(*memory, "Metrics")) {
        applyMemoryMetrics(*metrics, gpu);
        metrics_read = true;
      }
    }
    if (metrics_read) return;
    const Json* summary = member(processor, "MemorySummary");
    if (summary == nullptr || !summary->is_object()) return;
    if (auto metrics = tryGetLink(*summary, "Metrics")) applyMemoryMetrics(*metrics, gpu);
  }

  // A GPU with a chassis of its own (HGX) has its sensors there; the system's chassis holds no
  // sensor that says which GPU it measures, so it is not read for one.
  void readGpuChassis(const Json& processor, const std::vector<std::string>& systemChassis,
                      BmcGpuHealth& gpu) {
    auto links = linksOf(processor, "Chassis");
    if (links.empty()) return;
    const auto& link = links.front();
    if (std::find(systemChassis.begin(), systemChassis.end(), link) != systemChassis.end()) return;
    auto chassis = tryGet(link);
    if (!chassis) return;
    if (auto thermal = tryGetLink(*chassis, "ThermalSubsystem")) {
      if (auto metrics = tryGetLink(*thermal, "ThermalMetrics")) applyThermalMetrics(*metrics, gpu);
    }
    if (auto environment = tryGetLink(*chassis, "EnvironmentMetrics"))
      applyEnvironmentMetrics(*environment, gpu);
  }

  // The system's chassis: its power supplies and, when its processors showed no GPU, its GPUs
  // as PCIe devices (Supermicro HGX).
  void readChassis(const std::string& path, bool gpusFromPcie) {
    if (!chassisRead_.insert(path).second) return;
    auto chassis = tryGet(path);
    if (!chassis) return;
    readPowerSupplies(*chassis);
    if (!gpusFromPcie) return;
    auto devices = tryGetLink(*chassis, "PCIeDevices");
    if (!devices) return;
    for (const auto& link : memberLinks(*devices)) {
      if (auto device = tryGet(link)) {
        if (auto gpu = parseGpuPcieDevice(*device)) health_.gpus.push_back(std::move(*gpu));
      }
    }
  }

  void readPowerSupplies(const Json& chassis) {
    if (auto subsystem = tryGetLink(chassis, "PowerSubsystem")) {
      if (auto supplies = tryGetLink(*subsystem, "PowerSupplies")) {
        for (const auto& link : memberLinks(*supplies)) {
          if (auto supply = tryGet(link))
            health_.powerSupplies.push_back(parsePowerSupplyHealth(*supply));
        }
        return;
      }
    }
    if (auto power = tryGetLink(chassis, "Power")) {
      for (auto& supply : parseLegacyPowerSupplies(*power))
        health_.powerSupplies.push_back(std::move(supply));
    }
  }

  Client& client_;
  BmcNodeHealth health_;
  std::set<std::string> chassisRead_;
};

}  // namespace

common::Result<BmcNodeHealth> readBmcHealth(Client& client) {
  return HealthReader(client).read();
}

}  // namespace redfish

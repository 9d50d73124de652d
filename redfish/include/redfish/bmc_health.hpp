// The out-of-band health of one node as its BMC reports it (docs/health.md, "The out-of-band
// sweep"): every GPU's Status, PCIe link, temperatures, power, lifetime ECC counts and row
// remapping; every power supply's Status; the systems' health roll-up. Read when the node's own
// agent has gone silent, so it says what the BMC sees of a node that no longer reports.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "common/result.hpp"
#include "redfish/client.hpp"

namespace redfish {

// Status as the BMC words it: Health "OK" / "Warning" / "Critical" ("" when not reported), State
// ("Enabled", "Absent", ...), and the messages of Status.Conditions (Resource v1.14+).
struct HealthStatus {
  std::string health, healthRollup, state;
  std::vector<std::string> conditions;
};

struct BmcGpuHealth {
  std::string id, odataId, serialNumber, model;
  std::string source;  // "processor" or "pcie_device" (Supermicro HGX shows GPUs only there)
  HealthStatus status;
  std::optional<std::int64_t> lanesInUse, maxLanes;  // SystemInterface.PCIe / PCIeInterface
  std::optional<double> temperatureC, memoryTemperatureC, powerW;
  // MemoryMetrics LifeTime (the InfoROM's aggregate counts, as NVML's aggregate ECC).
  std::optional<std::uint64_t> eccCorrected, eccUncorrected;
  // The GPU's DRAM Memory resource and its metrics (Oem.Nvidia on HGX).
  std::optional<std::uint64_t> remappedCorrectable, remappedUncorrectable;
  std::optional<bool> remapPending, remapFailed;
  // ProcessorMetrics PCIeErrors.
  std::optional<std::uint64_t> pcieCorrectable, pcieNonFatal, pcieFatal, pcieReplay;
};

struct BmcPowerSupplyHealth {
  std::string name, odataId, serialNumber;
  HealthStatus status;
};

struct BmcNodeHealth {
  std::vector<HealthStatus> systems;  // each ComputerSystem's Status, in the service's order
  std::vector<BmcGpuHealth> gpus;
  std::vector<BmcPowerSupplyHealth> powerSupplies;
  std::vector<std::string> warnings;  // resources that could not be read (the read goes on)
  int requests = 0;                   // GETs sent
};

// Pure readers of one resource body (never throw; a field of the wrong type reads as absent).
HealthStatus parseHealthStatus(const nlohmann::json& resource);
// A Processor with ProcessorType GPU, or a GPU's PCIeDevice; nullopt for anything else.
std::optional<BmcGpuHealth> parseGpuProcessor(const nlohmann::json& processor);
std::optional<BmcGpuHealth> parseGpuPcieDevice(const nlohmann::json& device);
void applyProcessorMetrics(const nlohmann::json& metrics, BmcGpuHealth& gpu);
void applyMemoryMetrics(const nlohmann::json& metrics, BmcGpuHealth& gpu);
void applyGpuMemory(const nlohmann::json& memory, BmcGpuHealth& gpu);
void applyThermalMetrics(const nlohmann::json& thermalMetrics, BmcGpuHealth& gpu);
void applyEnvironmentMetrics(const nlohmann::json& environment, BmcGpuHealth& gpu);
// Power.PowerSupplies[] (the legacy resource) or one PowerSubsystem PowerSupply.
std::vector<BmcPowerSupplyHealth> parseLegacyPowerSupplies(const nlohmann::json& power);
BmcPowerSupplyHealth parsePowerSupplyHealth(const nlohmann::json& supply);

// Walks service root -> Systems -> each system (its Status, its Processors' GPUs with their
// metrics, memory and chassis sensors, its chassis' power supplies); a Supermicro-style system
// whose GPUs are PCIe devices of its chassis is read there. Blocking; one request at a time. An
// unreadable member is a warning, not a failure; only an unreadable service root or Systems
// collection fails the read.
common::Result<BmcNodeHealth> readBmcHealth(Client& client);

}  // namespace redfish

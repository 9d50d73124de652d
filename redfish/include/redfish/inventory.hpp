// The out-of-band inventory of one BMC as plain structs, filled by the crawl (crawl.hpp) and
// rendered as snake_case JSON. Absent values stay empty/nullopt rather than guessed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace redfish {

struct ServiceInfo {
  std::string vendor;  // service root Vendor, else the Oem key (e.g. "Supermicro")
  std::string redfishVersion;
  std::string uuid;
  std::string product;
};

struct Processor {
  std::string id;
  std::string type;  // "CPU", "GPU" or "other"
  std::string manufacturer, model, serialNumber, partNumber, firmwareVersion, uuid;
  std::optional<std::int64_t> memoryMib;  // GPUs, where exposed
  std::optional<std::int64_t> cores, threads;
};

struct Dimm {
  std::string id;
  std::optional<std::int64_t> capacityMib, speedMhz;
  std::string manufacturer, partNumber, serialNumber;
};

struct EthernetInterface {
  std::string id;
  std::string mac;
  std::optional<std::int64_t> speedMbps;
};

struct Drive {
  std::string id, model, serialNumber, mediaType, protocol;
  std::optional<std::int64_t> capacityBytes;
  bool secureEraseAvailable = false;
  std::string odataId;  // where Drive.SecureErase is sent from
};

struct Storage {
  std::string id;
  std::vector<Drive> drives;
};

struct BootCapabilities {
  std::vector<std::string> allowedTargets;  // BootSourceOverrideTarget@Redfish.AllowableValues
  std::string overrideMode;                 // BootSourceOverrideMode (UEFI/Legacy)
  bool httpBootUri = false;                 // Boot.HttpBootUri is present
};

struct System {
  std::string id, odataId, manufacturer, model, serialNumber, sku, uuid, powerState, biosVersion;
  std::vector<Processor> processors;
  std::vector<Dimm> memory;
  std::vector<EthernetInterface> ethernetInterfaces;
  std::vector<Storage> storage;
  BootCapabilities boot;
};

struct Location {
  std::string rack, slot;
  std::optional<std::int64_t> ordinal;  // rack offset (U) or slot ordinal
};

struct PowerSupply {
  std::string name, model, serialNumber, firmwareVersion;
  std::optional<double> capacityWatts;
};

struct Temperature {
  std::string name;
  std::optional<double> readingCelsius, upperCritical;
};

struct NetworkPort {
  std::string id, mac;
  std::optional<std::int64_t> linkSpeedMbps;
};

struct NetworkAdapter {
  std::string id, model, serialNumber;
  std::vector<NetworkPort> ports;
};

struct Chassis {
  std::string id, odataId, chassisType, manufacturer, model, serialNumber, partNumber;
  Location location;
  std::vector<PowerSupply> powerSupplies;
  std::vector<Temperature> temperatures;
  std::vector<std::string> pcieDevices;  // ids of pcie_devices[] that live in this chassis
  std::vector<NetworkAdapter> networkAdapters;
};

struct FirmwareEntry {
  std::string id, odataId, name, version, softwareId;
  bool updateable = false;
};

struct PcieDevice {
  std::string id, odataId, name, manufacturer, model, serialNumber, firmwareVersion, deviceClass;
  std::optional<std::int64_t> currentLinkWidth, maxLinkWidth;
  std::string currentGeneration, maxGeneration;  // "Gen5"
};

struct Manager {
  std::string id, firmwareVersion;
  std::vector<std::string> macs;
};

// A GPU wherever the BMC shows it: a Processor with ProcessorType GPU, or (Supermicro HGX) a
// PCIe device whose functions are display/accelerator controllers from NVIDIA/AMD.
struct GpuSummary {
  std::string id, source;  // source: "processor" or "pcie_device"
  std::string model, serialNumber, firmwareVersion;
};

struct Inventory {
  ServiceInfo service;
  std::vector<System> systems;
  std::vector<Chassis> chassis;
  std::vector<FirmwareEntry> firmware;
  std::vector<PcieDevice> pcieDevices;
  std::vector<Manager> managers;
  std::vector<GpuSummary> gpus;
  std::vector<std::string> warnings;  // members skipped (404, HGX 503 while off, ...)
};

nlohmann::json toJson(const Inventory& inventory);

}  // namespace redfish

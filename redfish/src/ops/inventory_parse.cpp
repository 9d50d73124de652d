#include "inventory_parse.hpp"

#include <algorithm>
#include <cctype>

#include "redfish/json.hpp"
#include "redfish/quirks.hpp"

namespace redfish::ops {
namespace {

std::string text(const Json& body, std::string_view key) {
  std::string value = stringAt(body, key).value_or("");
  return isPlaceholder(value) ? std::string() : value;
}

std::optional<std::int64_t> integer(const Json& body, std::string_view key) {
  if (auto value = intAt(body, key)) return value;
  if (auto number = numberAt(body, key)) return static_cast<std::int64_t>(*number);
  return std::nullopt;
}

std::string processorType(const Json& body) {
  std::string type = stringAt(body, "ProcessorType").value_or("");
  if (type == "CPU" || type == "GPU") return type;
  return "other";
}

// Location.Placement (rack, U offset) and PartLocation (slot), falling back to Oem.<vendor>.
Location parseLocation(const Json& holder) {
  Location location;
  const Json* where = member(holder, "Location");
  if (where == nullptr) return location;
  if (const Json* placement = member(*where, "Placement")) {
    location.rack = text(*placement, "Rack");
    location.ordinal = integer(*placement, "RackOffset");
  }
  if (const Json* part = member(*where, "PartLocation")) {
    location.slot = text(*part, "ServiceLabel");
    if (!location.ordinal) location.ordinal = integer(*part, "LocationOrdinalValue");
  }
  return location;
}

void fillLocationFromOem(const Json& body, Location& location) {
  const Json* oem = member(body, "Oem");
  if (oem == nullptr || !oem->is_object()) return;
  for (const auto& item : oem->items()) {
    Location vendor = parseLocation(item.value());
    if (location.rack.empty()) location.rack = vendor.rack;
    if (location.slot.empty()) location.slot = vendor.slot;
    if (!location.ordinal) location.ordinal = vendor.ordinal;
  }
}

std::vector<std::string> stringList(const Json* array) {
  std::vector<std::string> values;
  if (array == nullptr || !array->is_array()) return values;
  for (const Json& value : *array) {
    if (value.is_string()) values.push_back(value.get<std::string>());
  }
  return values;
}

}  // namespace

bool isPlaceholder(const std::string& value) {
  std::string lowered(value);
  std::transform(lowered.begin(), lowered.end(), lowered.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return lowered.empty() || lowered == "n/a" || lowered == "na" || lowered == "not available" ||
         lowered == "unknown" || lowered == "none";
}

ServiceInfo parseServiceInfo(const Json& root) {
  ServiceInfo info;
  info.vendor = text(root, "Vendor");
  if (info.vendor.empty()) {
    std::string detected = detectVendor(root);
    if (detected != "generic") info.vendor = detected;
  }
  info.redfishVersion = text(root, "RedfishVersion");
  info.uuid = text(root, "UUID");
  info.product = text(root, "Product");
  return info;
}

System parseSystem(const Json& body) {
  System system;
  system.id = text(body, "Id");
  system.odataId = odataId(body).value_or("");
  system.manufacturer = text(body, "Manufacturer");
  system.model = text(body, "Model");
  system.serialNumber = text(body, "SerialNumber");
  system.sku = text(body, "SKU");
  system.uuid = text(body, "UUID");
  system.powerState = text(body, "PowerState");
  system.biosVersion = text(body, "BiosVersion");
  if (const Json* boot = member(body, "Boot")) {
    system.boot.allowedTargets =
        stringList(member(*boot, "BootSourceOverrideTarget@Redfish.AllowableValues"));
    system.boot.overrideMode = text(*boot, "BootSourceOverrideMode");
    system.boot.httpBootUri = member(*boot, "HttpBootUri") != nullptr;
  }
  return system;
}

Processor parseProcessor(const Json& body) {
  Processor processor;
  processor.id = text(body, "Id");
  processor.type = processorType(body);
  processor.manufacturer = text(body, "Manufacturer");
  processor.model = text(body, "Model");
  processor.serialNumber = text(body, "SerialNumber");
  processor.partNumber = text(body, "PartNumber");
  processor.firmwareVersion = text(body, "FirmwareVersion");
  processor.uuid = text(body, "UUID");
  processor.cores = integer(body, "TotalCores");
  processor.threads = integer(body, "TotalThreads");
  if (const Json* memory = member(body, "ProcessorMemory"); memory && memory->is_array()) {
    std::int64_t total = 0;
    for (const Json& entry : *memory) total += integer(entry, "CapacityMiB").value_or(0);
    if (total > 0) processor.memoryMib = total;
  }
  if (!processor.memoryMib) processor.memoryMib = integer(body, "MemoryMiB");
  return processor;
}

Dimm parseDimm(const Json& body) {
  Dimm dimm;
  dimm.id = text(body, "Id");
  dimm.capacityMib = integer(body, "CapacityMiB");
  dimm.speedMhz = integer(body, "OperatingSpeedMhz");
  dimm.manufacturer = text(body, "Manufacturer");
  dimm.partNumber = text(body, "PartNumber");
  dimm.serialNumber = text(body, "SerialNumber");
  return dimm;
}

EthernetInterface parseEthernetInterface(const Json& body) {
  EthernetInterface nic;
  nic.id = text(body, "Id");
  nic.mac = text(body, "MACAddress");
  if (nic.mac.empty()) nic.mac = text(body, "PermanentMACAddress");
  nic.speedMbps = integer(body, "SpeedMbps");
  return nic;
}

Drive parseDrive(const Json& body) {
  Drive drive;
  drive.id = text(body, "Id");
  drive.odataId = odataId(body).value_or("");
  drive.model = text(body, "Model");
  drive.serialNumber = text(body, "SerialNumber");
  drive.mediaType = text(body, "MediaType");
  drive.protocol = text(body, "Protocol");
  drive.capacityBytes = integer(body, "CapacityBytes");
  drive.secureEraseAvailable = at(body, {"Actions", "#Drive.SecureErase"}) != nullptr;
  return drive;
}

Chassis parseChassis(const Json& body) {
  Chassis chassis;
  chassis.id = text(body, "Id");
  chassis.odataId = odataId(body).value_or("");
  chassis.chassisType = text(body, "ChassisType");
  chassis.manufacturer = text(body, "Manufacturer");
  chassis.model = text(body, "Model");
  chassis.serialNumber = text(body, "SerialNumber");
  chassis.partNumber = text(body, "PartNumber");
  chassis.location = parseLocation(body);
  fillLocationFromOem(body, chassis.location);
  return chassis;
}

PowerSupply parsePowerSupply(const Json& body) {
  PowerSupply supply;
  supply.name = text(body, "Name");
  supply.model = text(body, "Model");
  supply.serialNumber = text(body, "SerialNumber");
  supply.firmwareVersion = text(body, "FirmwareVersion");
  supply.capacityWatts = numberAt(body, "PowerCapacityWatts");
  if (!supply.capacityWatts) supply.capacityWatts = numberAt(body, "PowerOutputWatts");
  return supply;
}

std::vector<PowerSupply> parsePowerSupplies(const Json& power) {
  std::vector<PowerSupply> supplies;
  const Json* list = member(power, "PowerSupplies");
  if (list == nullptr || !list->is_array()) return supplies;
  for (const Json& entry : *list) supplies.push_back(parsePowerSupply(entry));
  return supplies;
}

std::vector<Temperature> parseTemperatures(const Json& thermal) {
  std::vector<Temperature> temperatures;
  const Json* list = member(thermal, "Temperatures");
  if (list == nullptr || !list->is_array()) return temperatures;
  for (const Json& entry : *list) {
    Temperature temperature;
    temperature.name = text(entry, "Name");
    temperature.readingCelsius = numberAt(entry, "ReadingCelsius");
    temperature.upperCritical = numberAt(entry, "UpperThresholdCritical");
    temperatures.push_back(std::move(temperature));
  }
  return temperatures;
}

PcieDevice parsePcieDevice(const Json& body) {
  PcieDevice device;
  device.id = text(body, "Id");
  device.odataId = odataId(body).value_or("");
  device.name = text(body, "Name");
  device.manufacturer = text(body, "Manufacturer");
  device.model = text(body, "Model");
  device.serialNumber = text(body, "SerialNumber");
  device.firmwareVersion = text(body, "FirmwareVersion");
  if (const Json* link = member(body, "PCIeInterface")) {
    device.currentLinkWidth = integer(*link, "LanesInUse");
    device.maxLinkWidth = integer(*link, "MaxLanes");
    device.currentGeneration = text(*link, "PCIeType");
    device.maxGeneration = text(*link, "MaxPCIeType");
  }
  // Supermicro marks its HGX GPUs with Oem.Supermicro.GPUVendor rather than a device class.
  if (const Json* oem = member(body, "Oem"); oem != nullptr && oem->is_object()) {
    for (const auto& item : oem->items()) {
      if (member(item.value(), "GPUVendor") != nullptr) device.deviceClass = "GPU";
    }
  }
  return device;
}

NetworkAdapter parseNetworkAdapter(const Json& body) {
  NetworkAdapter adapter;
  adapter.id = text(body, "Id");
  adapter.model = text(body, "Model");
  adapter.serialNumber = text(body, "SerialNumber");
  return adapter;
}

NetworkPort parseNetworkPort(const Json& body) {
  NetworkPort port;
  port.id = text(body, "Id");
  if (const Json* ethernet = member(body, "Ethernet")) {
    auto macs = stringList(member(*ethernet, "AssociatedMACAddresses"));
    if (!macs.empty()) port.mac = macs.front();
  }
  if (port.mac.empty()) {
    auto macs = stringList(member(body, "AssociatedNetworkAddresses"));
    if (!macs.empty()) port.mac = macs.front();
  }
  port.linkSpeedMbps = integer(body, "CurrentSpeedGbps");
  if (port.linkSpeedMbps) *port.linkSpeedMbps *= 1000;
  if (!port.linkSpeedMbps) {
    if (auto gbps = numberAt(body, "CurrentLinkSpeedGbps")) {
      port.linkSpeedMbps = static_cast<std::int64_t>(*gbps * 1000);
    }
  }
  return port;
}

FirmwareEntry parseFirmware(const Json& body) {
  FirmwareEntry entry;
  entry.id = text(body, "Id");
  entry.odataId = odataId(body).value_or("");
  entry.name = text(body, "Name");
  entry.version = text(body, "Version");
  entry.softwareId = text(body, "SoftwareId");
  entry.updateable = boolAt(body, "Updateable").value_or(false);
  return entry;
}

Manager parseManager(const Json& body) {
  Manager manager;
  manager.id = text(body, "Id");
  manager.firmwareVersion = text(body, "FirmwareVersion");
  return manager;
}

}  // namespace redfish::ops

// Pure readers of the resources the out-of-band health read visits (bmc_health.hpp).
#include <cmath>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string_view>

#include "redfish/bmc_health.hpp"
#include "redfish/json.hpp"

namespace redfish {
namespace {

// A sensor Reading: a number, or (the HGX management controller's ThermalMetrics) a numeric
// string such as "35.000000". Anything else, NaN or infinity reads as absent.
std::optional<double> readingOf(const Json* value) {
  if (value == nullptr) return std::nullopt;
  double number = 0;
  if (value->is_number()) {
    number = value->get<double>();
  } else if (value->is_string()) {
    const auto& text = value->get_ref<const std::string&>();
    char* end = nullptr;
    number = std::strtod(text.c_str(), &end);
    if (text.empty() || end != text.c_str() + text.size()) return std::nullopt;
  } else {
    return std::nullopt;
  }
  if (!std::isfinite(number)) return std::nullopt;
  return number;
}

std::optional<std::uint64_t> countAt(const Json& object, std::string_view key) {
  auto value = intAt(object, key);
  if (!value || *value < 0) return std::nullopt;
  return static_cast<std::uint64_t>(*value);
}

std::optional<std::uint64_t> countAtPath(const Json& object,
                                         std::initializer_list<std::string_view> path,
                                         std::string_view key) {
  const Json* parent = at(object, path);
  if (parent == nullptr || !parent->is_object()) return std::nullopt;
  return countAt(*parent, key);
}

std::string textAt(const Json& object, std::string_view key) {
  return stringAt(object, key).value_or("");
}

void applyLink(const Json* link, BmcGpuHealth& gpu) {
  if (link == nullptr || !link->is_object()) return;
  if (auto lanes = intAt(*link, "LanesInUse")) gpu.lanesInUse = lanes;
  if (auto lanes = intAt(*link, "MaxLanes")) gpu.maxLanes = lanes;
}

// The sensor's id: the last segment of DataSourceUri or @odata.id.
std::string sensorId(const Json& reading) {
  auto uri = stringAt(reading, "DataSourceUri");
  if (!uri) uri = odataId(reading);
  if (!uri) return "";
  auto slash = uri->rfind('/');
  return slash == std::string::npos ? *uri : uri->substr(slash + 1);
}

bool endsWith(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

bool isMemorySensor(const std::string& id) {
  return id.find("DRAM") != std::string::npos || id.find("HBM") != std::string::npos;
}

}  // namespace

HealthStatus parseHealthStatus(const Json& resource) {
  HealthStatus status;
  const Json* body = member(resource, "Status");
  if (body == nullptr || !body->is_object()) return status;
  status.health = textAt(*body, "Health");
  status.healthRollup = textAt(*body, "HealthRollup");
  status.state = textAt(*body, "State");
  const Json* conditions = member(*body, "Conditions");
  if (conditions == nullptr || !conditions->is_array()) return status;
  for (const Json& condition : *conditions) {
    if (!condition.is_object()) continue;
    auto message = stringAt(condition, "Message");
    if (!message) message = stringAt(condition, "MessageId");
    if (message && !message->empty()) status.conditions.push_back(*message);
  }
  return status;
}

std::optional<BmcGpuHealth> parseGpuProcessor(const Json& processor) {
  if (stringAt(processor, "ProcessorType").value_or("") != "GPU") return std::nullopt;
  BmcGpuHealth gpu;
  gpu.source = "processor";
  gpu.id = textAt(processor, "Id");
  gpu.odataId = odataId(processor).value_or("");
  gpu.serialNumber = textAt(processor, "SerialNumber");
  gpu.model = textAt(processor, "Model");
  gpu.status = parseHealthStatus(processor);
  applyLink(at(processor, {"SystemInterface", "PCIe"}), gpu);
  return gpu;
}

std::optional<BmcGpuHealth> parseGpuPcieDevice(const Json& device) {
  auto id = textAt(device, "Id");
  auto description = textAt(device, "Description");
  bool gpu_like = id.rfind("GPU", 0) == 0 || description.rfind("GPU", 0) == 0;
  if (!gpu_like) return std::nullopt;
  BmcGpuHealth gpu;
  gpu.source = "pcie_device";
  gpu.id = id;
  gpu.odataId = odataId(device).value_or("");
  gpu.serialNumber = textAt(device, "SerialNumber");
  gpu.model = textAt(device, "Model");
  gpu.status = parseHealthStatus(device);
  applyLink(member(device, "PCIeInterface"), gpu);
  return gpu;
}

void applyProcessorMetrics(const Json& metrics, BmcGpuHealth& gpu) {
  const Json* errors = member(metrics, "PCIeErrors");
  if (errors == nullptr || !errors->is_object()) return;
  gpu.pcieCorrectable = countAt(*errors, "CorrectableErrorCount");
  gpu.pcieNonFatal = countAt(*errors, "NonFatalErrorCount");
  gpu.pcieFatal = countAt(*errors, "FatalErrorCount");
  gpu.pcieReplay = countAt(*errors, "ReplayCount");
}

void applyMemoryMetrics(const Json& metrics, BmcGpuHealth& gpu) {
  if (auto count = countAtPath(metrics, {"LifeTime"}, "CorrectableECCErrorCount"))
    gpu.eccCorrected = count;
  if (auto count = countAtPath(metrics, {"LifeTime"}, "UncorrectableECCErrorCount"))
    gpu.eccUncorrected = count;
  const std::initializer_list<std::string_view> remapping{"Oem", "Nvidia", "RowRemapping"};
  if (auto count = countAtPath(metrics, remapping, "CorrectableRowRemappingCount"))
    gpu.remappedCorrectable = count;
  if (auto count = countAtPath(metrics, remapping, "UncorrectableRowRemappingCount"))
    gpu.remappedUncorrectable = count;
}

void applyGpuMemory(const Json& memory, BmcGpuHealth& gpu) {
  const Json* nvidia = at(memory, {"Oem", "Nvidia"});
  if (nvidia == nullptr || !nvidia->is_object()) return;
  if (auto pending = boolAt(*nvidia, "RowRemappingPending")) gpu.remapPending = pending;
  if (auto failed = boolAt(*nvidia, "RowRemappingFailed")) gpu.remapFailed = failed;
}

// HGX names a GPU's sensors <chassis>_TEMP_0 (the GPU), <chassis>_TEMP_1 (its margin to the
// slowdown temperature, which has only lower thresholds) and <chassis>_DRAM_0_Temp_0 (HBM). A
// chassis without that naming: its first non-memory reading is the GPU's.
void applyThermalMetrics(const Json& thermalMetrics, BmcGpuHealth& gpu) {
  const Json* readings = member(thermalMetrics, "TemperatureReadingsCelsius");
  if (readings == nullptr || !readings->is_array()) return;
  std::optional<double> first_other;
  for (const Json& reading : *readings) {
    if (!reading.is_object()) continue;
    auto value = readingOf(member(reading, "Reading"));
    if (!value) continue;
    auto id = sensorId(reading);
    if (isMemorySensor(id)) {
      if (!gpu.memoryTemperatureC) gpu.memoryTemperatureC = value;
    } else if (endsWith(id, "TEMP_0")) {
      gpu.temperatureC = value;
    } else if (!first_other && !endsWith(id, "TEMP_1")) {
      first_other = value;
    }
  }
  if (!gpu.temperatureC) gpu.temperatureC = first_other;
}

void applyEnvironmentMetrics(const Json& environment, BmcGpuHealth& gpu) {
  const Json* power = member(environment, "PowerWatts");
  if (power == nullptr || !power->is_object()) return;
  if (auto watts = readingOf(member(*power, "Reading"))) gpu.powerW = watts;
}

BmcPowerSupplyHealth parsePowerSupplyHealth(const Json& supply) {
  BmcPowerSupplyHealth health;
  health.name = textAt(supply, "Name");
  if (health.name.empty()) health.name = textAt(supply, "Id");
  health.odataId = odataId(supply).value_or("");
  health.serialNumber = textAt(supply, "SerialNumber");
  health.status = parseHealthStatus(supply);
  return health;
}

std::vector<BmcPowerSupplyHealth> parseLegacyPowerSupplies(const Json& power) {
  std::vector<BmcPowerSupplyHealth> supplies;
  const Json* list = member(power, "PowerSupplies");
  if (list == nullptr || !list->is_array()) return supplies;
  for (const Json& entry : *list) {
    if (entry.is_object()) supplies.push_back(parsePowerSupplyHealth(entry));
  }
  return supplies;
}

}  // namespace redfish

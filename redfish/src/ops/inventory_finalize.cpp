// After the crawl: responses arrive in any order, so sort everything into a stable order, fill
// GPU models that only the PCIe device names (Lenovo), and build the GPU summary.
#include <algorithm>
#include <cctype>
#include <unordered_map>
#include <unordered_set>

#include "crawler.hpp"

namespace redfish::ops {
namespace {

// "GPU_SXM_2" < "GPU_SXM_10": digit runs compare as numbers.
bool naturalLess(const std::string& a, const std::string& b) {
  std::size_t i = 0;
  std::size_t j = 0;
  while (i < a.size() && j < b.size()) {
    const bool digitA = std::isdigit(static_cast<unsigned char>(a[i])) != 0;
    const bool digitB = std::isdigit(static_cast<unsigned char>(b[j])) != 0;
    if (digitA && digitB) {
      std::size_t endA = i;
      std::size_t endB = j;
      while (endA < a.size() && std::isdigit(static_cast<unsigned char>(a[endA]))) ++endA;
      while (endB < b.size() && std::isdigit(static_cast<unsigned char>(b[endB]))) ++endB;
      std::string_view numA = std::string_view(a).substr(i, endA - i);
      std::string_view numB = std::string_view(b).substr(j, endB - j);
      while (numA.size() > 1 && numA.front() == '0') numA.remove_prefix(1);
      while (numB.size() > 1 && numB.front() == '0') numB.remove_prefix(1);
      if (numA.size() != numB.size()) return numA.size() < numB.size();
      if (numA != numB) return numA < numB;
      i = endA;
      j = endB;
    } else {
      if (a[i] != b[j]) return a[i] < b[j];
      ++i;
      ++j;
    }
  }
  return a.size() - i < b.size() - j;
}

template <class T, class Key>
void sortBy(std::vector<T>& items, Key key) {
  std::stable_sort(items.begin(), items.end(),
                   [&key](const T& x, const T& y) { return naturalLess(key(x), key(y)); });
}

const auto kById = [](const auto& item) -> const std::string& { return item.id; };

bool looksLikeGpu(const PcieDevice& device) {
  auto startsWithGpu = [](const std::string& text) {
    return text.size() >= 3 && std::toupper(static_cast<unsigned char>(text[0])) == 'G' &&
           std::toupper(static_cast<unsigned char>(text[1])) == 'P' &&
           std::toupper(static_cast<unsigned char>(text[2])) == 'U';
  };
  return device.deviceClass == "GPU" || startsWithGpu(device.id);
}

void sortSystem(System& system) {
  sortBy(system.processors, kById);
  sortBy(system.memory, kById);
  sortBy(system.ethernetInterfaces, kById);
  sortBy(system.storage, kById);
  for (auto& storage : system.storage) sortBy(storage.drives, kById);
}

void sortChassis(Chassis& chassis) {
  std::sort(chassis.pcieDevices.begin(), chassis.pcieDevices.end(), naturalLess);
  sortBy(chassis.networkAdapters, kById);
  for (auto& adapter : chassis.networkAdapters) sortBy(adapter.ports, kById);
}

void fillGpuModels(Inventory& inventory) {
  std::unordered_map<std::string, const PcieDevice*> bySerial;
  for (const auto& device : inventory.pcieDevices) {
    if (!device.serialNumber.empty()) bySerial.emplace(device.serialNumber, &device);
  }
  for (auto& system : inventory.systems) {
    for (auto& processor : system.processors) {
      if (processor.type != "GPU" || !processor.model.empty()) continue;
      auto found = bySerial.find(processor.serialNumber);
      if (found == bySerial.end()) continue;
      processor.model = found->second->model.empty() ? found->second->name : found->second->model;
    }
  }
}

void summariseGpus(Inventory& inventory) {
  std::unordered_set<std::string> serials;
  for (const auto& system : inventory.systems) {
    for (const auto& processor : system.processors) {
      if (processor.type != "GPU") continue;
      serials.insert(processor.serialNumber);
      inventory.gpus.push_back(GpuSummary{processor.id, "processor", processor.model,
                                          processor.serialNumber, processor.firmwareVersion});
    }
  }
  for (const auto& device : inventory.pcieDevices) {
    if (!looksLikeGpu(device) || serials.count(device.serialNumber) > 0) continue;
    inventory.gpus.push_back(GpuSummary{device.id, "pcie_device",
                                        device.model.empty() ? device.name : device.model,
                                        device.serialNumber, device.firmwareVersion});
  }
}

}  // namespace

void finalizeInventory(Inventory& inventory) {
  sortBy(inventory.systems, kById);
  for (auto& system : inventory.systems) sortSystem(system);
  sortBy(inventory.chassis, kById);
  for (auto& chassis : inventory.chassis) sortChassis(chassis);
  sortBy(inventory.firmware, kById);
  sortBy(inventory.pcieDevices,
         [](const PcieDevice& d) -> const std::string& { return d.odataId; });
  sortBy(inventory.managers, kById);
  std::sort(inventory.warnings.begin(), inventory.warnings.end());
  fillGpuModels(inventory);
  summariseGpus(inventory);
}

}  // namespace redfish::ops

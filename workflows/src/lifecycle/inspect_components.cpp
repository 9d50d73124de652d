#include "inspect_components.hpp"

#include <algorithm>
#include <set>

#include "common/mac_address.hpp"

namespace workflows::lifecycle {
namespace {

class Collector {
 public:
  explicit Collector(std::string chassis_serial) : chassis_(std::move(chassis_serial)) {}

  void add(inventory::ObservedComponent c, const std::string& id) {
    if (c.serial.empty()) c.serial = chassis_ + ":" + c.kind + ":" + id;
    if (c.slot.empty()) c.slot = id;
    if (!seen_.insert(c.serial).second) return;
    out_.push_back(std::move(c));
  }
  std::vector<inventory::ObservedComponent> take() { return std::move(out_); }

 private:
  std::string chassis_;
  std::set<std::string> seen_;
  std::vector<inventory::ObservedComponent> out_;
};

inventory::ObservedComponent part(std::string kind, std::string manufacturer, std::string model,
                                  std::string serial, std::string firmware = {}) {
  inventory::ObservedComponent c;
  c.kind = std::move(kind);
  c.manufacturer = std::move(manufacturer);
  c.model = std::move(model);
  c.serial = std::move(serial);
  c.firmware_version = std::move(firmware);
  return c;
}

void addSystem(Collector& out, const redfish::System& s) {
  for (const auto& p : s.processors) {
    if (p.type != "CPU") continue;  // GPUs come from Inventory::gpus, wherever the BMC shows them
    auto c = part("cpu", p.manufacturer, p.model, p.serialNumber, p.firmwareVersion);
    c.part_number = p.partNumber;
    out.add(std::move(c), p.id);
  }
  for (const auto& d : s.memory) {
    auto c = part("dimm", d.manufacturer, d.partNumber, d.serialNumber);
    c.part_number = d.partNumber;
    out.add(std::move(c), d.id);
  }
  for (const auto& st : s.storage) {
    for (const auto& d : st.drives) out.add(part("drive", "", d.model, d.serialNumber), d.id);
  }
  if (!s.biosVersion.empty())
    out.add(part("bios", s.manufacturer, "BIOS", "", s.biosVersion), s.id);
}

void addChassis(Collector& out, const redfish::Chassis& ch) {
  for (const auto& psu : ch.powerSupplies) {
    out.add(part("psu", "", psu.model, psu.serialNumber, psu.firmwareVersion),
            ch.id + "/" + psu.name);
  }
  for (const auto& nic : ch.networkAdapters) {
    out.add(part("nic", "", nic.model, nic.serialNumber), nic.id);
  }
}

}  // namespace

std::vector<inventory::ObservedComponent> componentsOf(const redfish::Inventory& inv,
                                                       const std::string& chassis_serial) {
  Collector out(chassis_serial);
  for (const auto& g : inv.gpus) {
    out.add(part("gpu", "", g.model, g.serialNumber, g.firmwareVersion), g.id);
  }
  for (const auto& s : inv.systems) addSystem(out, s);
  for (const auto& ch : inv.chassis) addChassis(out, ch);
  for (const auto& m : inv.managers) {
    out.add(part("bmc", inv.service.vendor, "BMC", "", m.firmwareVersion), m.id);
  }
  return out.take();
}

std::vector<std::string> unreadHostMacs(const redfish::Inventory& inv) {
  std::vector<std::string> missed;
  if (!hostMacs(inv).empty()) return missed;
  for (const auto& w : inv.warnings) {
    for (const char* source : {"EthernetInterfaces", "NetworkAdapters", "/Ports"}) {
      if (w.find(source) != std::string::npos) {
        missed.push_back(w);
        break;
      }
    }
  }
  return missed;
}

std::vector<std::string> hostMacs(const redfish::Inventory& inv) {
  std::vector<std::string> macs;
  auto add = [&](const std::string& text) {
    auto mac = common::normalizeMac(text);
    if (!mac || mac->empty() || *mac == "00:00:00:00:00:00") return;
    if (std::find(macs.begin(), macs.end(), *mac) == macs.end()) macs.push_back(*mac);
  };
  for (const auto& s : inv.systems) {
    for (const auto& e : s.ethernetInterfaces) add(e.mac);
  }
  for (const auto& ch : inv.chassis) {
    for (const auto& nic : ch.networkAdapters) {
      for (const auto& port : nic.ports) add(port.mac);
    }
  }
  return macs;
}

namespace {

// The GPU a PCIe device is: by serial, else by id.
const redfish::GpuSummary* gpuFor(const redfish::Inventory& inv, const redfish::PcieDevice& d) {
  for (const auto& g : inv.gpus) {
    if (!d.serialNumber.empty() && g.serialNumber == d.serialNumber) return &g;
  }
  for (const auto& g : inv.gpus) {
    if (g.id == d.id) return &g;
  }
  return nullptr;
}

bool isGpuDevice(const redfish::Inventory& inv, const redfish::PcieDevice& d) {
  return d.deviceClass == "GPU" || gpuFor(inv, d) != nullptr;
}

void checkLinks(const redfish::Inventory& inv, std::vector<Finding>& out) {
  for (const auto& d : inv.pcieDevices) {
    if (!d.currentLinkWidth || !d.maxLinkWidth || *d.currentLinkWidth >= *d.maxLinkWidth) continue;
    if (!isGpuDevice(inv, d)) continue;
    const auto* gpu = gpuFor(inv, d);
    std::string serial = gpu ? gpu->serialNumber : d.serialNumber;
    out.push_back({"pcie_link_degraded",
                   "GPU " + serial + " (PCIe device " + d.id + ") links at x" +
                       std::to_string(*d.currentLinkWidth) + " of x" +
                       std::to_string(*d.maxLinkWidth),
                   {{"device", d.id},
                    {"component_serial", serial},
                    {"measurement", "pcie_link_width"},
                    {"current_width", *d.currentLinkWidth},
                    {"max_width", *d.maxLinkWidth}}});
  }
}

}  // namespace

std::vector<Finding> checkHardware(const redfish::Inventory& inv, int expected_gpus,
                                   const std::string& gpu_model) {
  std::vector<Finding> out;
  const int found = static_cast<int>(inv.gpus.size());
  if (expected_gpus > 0 && found != expected_gpus) {
    out.push_back(
        {"gpu_count_mismatch",
         std::to_string(found) + " GPUs found, " + std::to_string(expected_gpus) + " expected",
         {{"expected", expected_gpus}, {"found", found}}});
  }
  if (!gpu_model.empty()) {
    for (const auto& g : inv.gpus) {
      if (g.model.find(gpu_model) != std::string::npos) continue;
      out.push_back(
          {"gpu_model_mismatch",
           "GPU " + g.serialNumber + " is a " + g.model + ", not a " + gpu_model,
           {{"component_serial", g.serialNumber}, {"expected", gpu_model}, {"found", g.model}}});
      break;
    }
  }
  checkLinks(inv, out);
  return out;
}

}  // namespace workflows::lifecycle

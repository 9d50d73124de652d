// snake_case JSON for the inventory; absent optionals render as null so the shape is stable.
#include <nlohmann/json.hpp>

#include "redfish/inventory.hpp"

namespace redfish {
namespace {

using nlohmann::json;

template <class T>
json optional(const std::optional<T>& value) {
  return value ? json(*value) : json(nullptr);
}

template <class T, class F>
json list(const std::vector<T>& items, F render) {
  json out = json::array();
  for (const auto& item : items) out.push_back(render(item));
  return out;
}

json render(const Processor& p) {
  return {{"id", p.id},
          {"type", p.type},
          {"manufacturer", p.manufacturer},
          {"model", p.model},
          {"serial_number", p.serialNumber},
          {"part_number", p.partNumber},
          {"firmware_version", p.firmwareVersion},
          {"uuid", p.uuid},
          {"memory_mib", optional(p.memoryMib)},
          {"cores", optional(p.cores)},
          {"threads", optional(p.threads)}};
}

json render(const Dimm& d) {
  return {{"id", d.id},
          {"capacity_mib", optional(d.capacityMib)},
          {"speed_mhz", optional(d.speedMhz)},
          {"manufacturer", d.manufacturer},
          {"part_number", d.partNumber},
          {"serial_number", d.serialNumber}};
}

json render(const EthernetInterface& e) {
  return {{"id", e.id}, {"mac", e.mac}, {"speed_mbps", optional(e.speedMbps)}};
}

json render(const Drive& d) {
  return {{"id", d.id},
          {"model", d.model},
          {"serial_number", d.serialNumber},
          {"capacity_bytes", optional(d.capacityBytes)},
          {"media_type", d.mediaType},
          {"protocol", d.protocol},
          {"secure_erase_available", d.secureEraseAvailable}};
}

json render(const Storage& s) {
  return {{"id", s.id}, {"drives", list(s.drives, [](const Drive& d) { return render(d); })}};
}

json render(const System& s) {
  return {{"id", s.id},
          {"manufacturer", s.manufacturer},
          {"model", s.model},
          {"serial_number", s.serialNumber},
          {"sku", s.sku},
          {"uuid", s.uuid},
          {"power_state", s.powerState},
          {"bios_version", s.biosVersion},
          {"processors", list(s.processors, [](const Processor& p) { return render(p); })},
          {"memory", list(s.memory, [](const Dimm& d) { return render(d); })},
          {"ethernet_interfaces",
           list(s.ethernetInterfaces, [](const EthernetInterface& e) { return render(e); })},
          {"storage", list(s.storage, [](const Storage& x) { return render(x); })},
          {"boot",
           {{"allowed_targets", s.boot.allowedTargets},
            {"override_mode", s.boot.overrideMode},
            {"http_boot_uri_supported", s.boot.httpBootUri}}}};
}

json render(const NetworkAdapter& a) {
  return {
      {"id", a.id},
      {"model", a.model},
      {"serial_number", a.serialNumber},
      {"ports", list(a.ports, [](const NetworkPort& p) {
         return json{{"id", p.id}, {"mac", p.mac}, {"link_speed_mbps", optional(p.linkSpeedMbps)}};
       })}};
}

json render(const Chassis& c) {
  return {{"id", c.id},
          {"chassis_type", c.chassisType},
          {"manufacturer", c.manufacturer},
          {"model", c.model},
          {"serial_number", c.serialNumber},
          {"part_number", c.partNumber},
          {"location",
           {{"rack", c.location.rack},
            {"ordinal", optional(c.location.ordinal)},
            {"slot", c.location.slot}}},
          {"power_supplies", list(c.powerSupplies,
                                  [](const PowerSupply& p) {
                                    return json{{"name", p.name},
                                                {"model", p.model},
                                                {"serial_number", p.serialNumber},
                                                {"firmware_version", p.firmwareVersion},
                                                {"capacity_watts", optional(p.capacityWatts)}};
                                  })},
          {"temperatures", list(c.temperatures,
                                [](const Temperature& t) {
                                  return json{{"name", t.name},
                                              {"reading_celsius", optional(t.readingCelsius)},
                                              {"upper_critical", optional(t.upperCritical)}};
                                })},
          {"pcie_devices", c.pcieDevices},
          {"network_adapters",
           list(c.networkAdapters, [](const NetworkAdapter& a) { return render(a); })}};
}

json render(const PcieDevice& d) {
  return {{"id", d.id},
          {"name", d.name},
          {"manufacturer", d.manufacturer},
          {"model", d.model},
          {"serial_number", d.serialNumber},
          {"firmware_version", d.firmwareVersion},
          {"current_link_width", optional(d.currentLinkWidth)},
          {"max_link_width", optional(d.maxLinkWidth)},
          {"current_generation", d.currentGeneration},
          {"max_generation", d.maxGeneration}};
}

}  // namespace

nlohmann::json toJson(const Inventory& inventory) {
  const ServiceInfo& s = inventory.service;
  return {
      {"service",
       {{"vendor", s.vendor},
        {"redfish_version", s.redfishVersion},
        {"uuid", s.uuid},
        {"product", s.product}}},
      {"systems", list(inventory.systems, [](const System& x) { return render(x); })},
      {"chassis", list(inventory.chassis, [](const Chassis& x) { return render(x); })},
      {"firmware", list(inventory.firmware,
                        [](const FirmwareEntry& f) {
                          return json{{"id", f.id},
                                      {"name", f.name},
                                      {"version", f.version},
                                      {"updateable", f.updateable},
                                      {"software_id", f.softwareId}};
                        })},
      {"pcie_devices", list(inventory.pcieDevices, [](const PcieDevice& d) { return render(d); })},
      {"managers",
       list(inventory.managers,
            [](const Manager& m) {
              return json{{"id", m.id}, {"firmware_version", m.firmwareVersion}, {"macs", m.macs}};
            })},
      {"gpus", list(inventory.gpus,
                    [](const GpuSummary& g) {
                      return json{{"id", g.id},
                                  {"source", g.source},
                                  {"model", g.model},
                                  {"serial_number", g.serialNumber},
                                  {"firmware_version", g.firmwareVersion}};
                    })},
      {"warnings", inventory.warnings}};
}

}  // namespace redfish

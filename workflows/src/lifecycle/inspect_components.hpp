// The Redfish inventory as the inventory module's components, and the checks inspect makes.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "inventory/types.hpp"
#include "redfish/inventory.hpp"

namespace workflows::lifecycle {

// GPUs, CPUs, DIMMs, drives, NICs, PSUs and the BMC/BIOS firmware. A part without a serial gets
// "<chassis serial>:<kind>:<id>", stable across crawls; a serial seen twice is kept once.
std::vector<inventory::ObservedComponent> componentsOf(const redfish::Inventory& inv,
                                                       const std::string& chassis_serial);
// Host NIC MACs (systems' Ethernet interfaces and chassis network ports), normalised, unique.
std::vector<std::string> hostMacs(const redfish::Inventory& inv);
// Why the crawl may have missed the host MACs the node boots with: its warnings about the
// places MACs come from (Ethernet interfaces, network adapters and their ports), when it read
// no MAC at all. Empty: nothing missed, or some MACs were read. A 503 or a malformed answer on
// those reads must not leave a node that no boot script will ever recognise.
std::vector<std::string> unreadHostMacs(const redfish::Inventory& inv);

// A failed check: the reason code, a sentence and the evidence.
struct Finding {
  std::string reason, message;
  nlohmann::json detail;
};
// GPU count against `expected_gpus` (0: not checked), GPU model against `gpu_model` ("": any),
// PCIe links of GPUs below their maximum width. Empty when all pass.
std::vector<Finding> checkHardware(const redfish::Inventory& inv, int expected_gpus,
                                   const std::string& gpu_model);

}  // namespace workflows::lifecycle

// Plain records the inventory reads and writes. Timestamps are ISO 8601 UTC text from PostgreSQL.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace inventory {

using Id = std::int64_t;
using Timestamp = std::string;  // "2026-12-02T09:43:46.123456Z"

// One page of a keyset-paginated listing; next_after is the id to pass for the next page.
template <class T>
struct Page {
  std::vector<T> items;
  std::optional<Id> next_after;
};

struct PageRequest {
  Id after = 0;    // 0: from the start
  int limit = 50;  // 1..1000, checked by the caller
};

// Node lifecycle states (DESIGN.md); stored as text with a CHECK constraint.
inline constexpr std::string_view kNodeStates[] = {
    "discovered", "matched", "claimed", "inspected",   "configured",      "firmware",
    "imaging",    "burn_in", "ready",   "quarantined", "decommissioning", "decommission_failed",
    "retired"};
bool isNodeState(std::string_view s);
// Decommissioning, decommission_failed or retired: a node leaving the fleet (or gone), which is
// neither drained, given back to the scheduler nor given a monitor credential again.
inline bool isLeavingFleet(std::string_view state) {
  return state == "decommissioning" || state == "decommission_failed" || state == "retired";
}

// Component kinds; stored as text with a CHECK constraint.
inline constexpr std::string_view kComponentKinds[] = {"gpu",      "cpu", "dimm",  "nic",
                                                       "drive",    "psu", "bmc",   "bios",
                                                       "nvswitch", "fan", "board", "other"};
bool isComponentKind(std::string_view s);

struct Site {
  Id id = 0;
  std::string name;
  std::string description;
  Timestamp created_at;
};

struct RackSpec {
  std::string site;  // site name; must exist
  std::string room;  // optional; created on first use
  std::string row;   // optional; created on first use (needs room)
  std::string name;  // unique within the site
  int u_height = 42;
};

struct Rack {
  Id id = 0;
  std::string site;
  std::string room;
  std::string row;
  std::string name;
  int u_height = 42;
  int node_count = 0;
  Timestamp created_at;
};

struct NodeSpec {
  std::string chassis_serial;  // required, unique
  std::string hardware_model;
  std::string bmc_address;  // host or IP the BMC answers on
  std::string bmc_mac;      // normalised lower-case aa:bb:cc:dd:ee:ff, unique when set
  std::optional<Id> rack_id;
  std::optional<int> u_position;
  std::string state = "discovered";
};

struct Node {
  Id id = 0;
  std::string state;
  std::string hardware_model;
  std::string chassis_serial;
  std::string bmc_address;
  std::string bmc_mac;
  std::optional<Id> rack_id;
  std::string site;  // empty when not racked
  std::string rack;  // rack name, empty when not racked
  std::optional<int> u_position;
  int gpu_count = 0;  // GPUs installed now
  Timestamp created_at;
  Timestamp updated_at;
  std::string state_reason;  // why the node is in its state (a quarantine's cause)
  // Labels: partition, nvlink_domain, pdu, leaf_switch, ... (see inventory/node_labels.hpp).
  std::map<std::string, std::string> labels;
};

struct NodeFilter {
  std::string state;
  std::string model;
  std::string site;
  std::string rack;              // rack name
  std::string firmware_version;  // any installed component at this version
  PageRequest page;
};

// A component as seen on a node now (by Redfish, the agent, or a person).
struct ObservedComponent {
  std::string kind;  // one of kComponentKinds
  std::string slot;  // "GPU_SXM_1", "DIMM A1", "PSU2"
  std::string manufacturer;
  std::string model;
  std::string part_number;
  std::string serial;  // required: the identity of the part
  std::string firmware_version;
};

// A full report of what a node holds: parts missing from it are recorded as removed.
struct ComponentReport {
  std::vector<ObservedComponent> components;
  std::string reason = "inventory";  // "inventory" or "rma" (parts removed under RMA)
  std::string rma_ticket;            // with reason "rma"
  std::string actor;                 // who reported: token name, "redfish", "agent"
};

struct ComponentReportOutcome {
  int installed = 0;         // new to this node (first seen, or moved in from another node)
  int moved_in = 0;          // of those, previously on another node
  int removed = 0;           // no longer on this node
  int firmware_changed = 0;  // same part, new firmware version
  int unchanged = 0;
};

struct Component {
  Id id = 0;
  std::string kind;
  std::string slot;
  std::string manufacturer;
  std::string model;
  std::string part_number;
  std::string serial;
  std::string firmware_version;
  Timestamp installed_at;
};

struct NodeEvent {
  Id id = 0;
  Id node_id = 0;
  Timestamp at;
  std::string actor;
  std::string kind;  // "registered", "state_changed", "component_installed", ...
  std::string message;
  std::string detail_json = "{}";
};

struct NodeDetail {
  Node node;
  std::vector<Component> components;
  std::vector<NodeEvent> timeline;  // oldest first
};

}  // namespace inventory
